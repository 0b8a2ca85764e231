package aar

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// repoRoot is the repository holding this module (sdks/go is two levels down).
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// vectorPath finds a vector folder in the project's vectors/, falling back to the shared copy.
func vectorPath(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{repoRoot(t), "vectors"}, parts...)...)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	shared := filepath.Join(append([]string{"/work/shared/vectors"}, parts...)...)
	if _, err := os.Stat(shared); err == nil {
		return shared
	}
	t.Fatalf("vector folder %s not found", filepath.Join(parts...))
	return ""
}

func readJSONFile(t testing.TB, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ParseJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
