export function ConsoleApp() {
  return (
    <main id="main" class="page">
      <h1>Console</h1>
    </main>
  );
}
