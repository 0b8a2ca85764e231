package aar

// How an application depends on this module without a module proxy (README "Depending on the module"): a replace
// directive to a local checkout, built with GOPROXY=off GOFLAGS=-mod=mod. Checked as written, in a fresh module
// outside the repository with its own empty GOPATH (no module cache to fall back on).

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const consumerMain = `package main

import (
	"fmt"
	"os"

	aar "github.com/aar-project/aar/sdks/go"
)

func main() {
	jwksURL, err := aar.ResolveJWKSURL(aar.JWKSLocation{URL: os.Args[1]})
	if err != nil {
		fmt.Println("refused:", err)
		os.Exit(1)
	}
	fmt.Println(jwksURL)
}
`

func TestDependOnTheModuleWithoutAProxy(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Fatal("no go binary to build the consumer module with")
		}
	}
	sdkDir := filepath.Join(repoRoot(t), "sdks", "go")
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/auditor\n\ngo 1.19\n")
	write("main.go", consumerMain)
	env := append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off",
		"GOPATH="+filepath.Join(dir, "gopath"), "GOMODCACHE="+filepath.Join(dir, "gopath", "pkg", "mod"))
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// the two commands of the README, as written there
	run("mod", "edit", "-replace", "github.com/aar-project/aar/sdks/go="+sdkDir)
	run("build", "-o", "auditor", ".")
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !strings.Contains(string(mod), "require github.com/aar-project/aar/sdks/go v0.0.0-00010101000000-000000000000") {
		t.Fatalf("go.mod after the build:\n%s", mod)
	}
	out, err := exec.Command(filepath.Join(dir, "auditor"), "https://aar.example").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "https://aar.example/.well-known/jwks.json" {
		t.Fatalf("the consumer answered %q (%v)", out, err)
	}
}
