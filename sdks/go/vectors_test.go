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

// vectorPath is a folder of the vectors this project writes (the repository's vectors/).
func vectorPath(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{repoRoot(t), "vectors"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("vector folder %s not found", filepath.Join(parts...))
	}
	return p
}

// sharedVectorPath is a public vector set, read where it is published for the project: ../shared/vectors beside the
// repository (AAR_SHARED_VECTORS names another folder), never a copy in vectors/. Where it is absent the test is
// skipped with a notice, except under CI=true, where it fails: a lost suite must not pass as skipped.
func sharedVectorPath(t testing.TB, parts ...string) string {
	t.Helper()
	root := os.Getenv("AAR_SHARED_VECTORS")
	if root == "" {
		root = filepath.Join(repoRoot(t), "..", "shared", "vectors")
	}
	p := filepath.Join(append([]string{root}, parts...)...)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("shared vectors not found at %s (under CI=true this is a failure)", p)
	}
	t.Skipf("NOTICE: shared vectors not found at %s: SKIPPED", p)
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
