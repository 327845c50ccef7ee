package artifacts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// hdrJavaJars are where Debian's libhdrhistogram-java puts the library.
var hdrJavaJars = []string{"/usr/share/java/hdrhistogram.jar", "/usr/share/java/HdrHistogram.jar"}

// hdrJava is testdata/hdrjava/HdrJava.java compiled against the real
// HdrHistogram Java library, once per test process (TestMain removes it).
var hdrJava struct {
	once      sync.Once
	dir, jar  string
	skip, err string
}

// TestMain removes the compiled Java helper after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if hdrJava.dir != "" {
		os.RemoveAll(hdrJava.dir)
	}
	os.Exit(code)
}

// javaHdr runs the HdrJava helper with args and stdin and returns its
// output. It skips the test when java, javac or the library is missing
// (.ci/run installs libhdrhistogram-java; its failure only logs).
func javaHdr(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	return javaMain(t, stdin, "HdrJava", args...)
}

// javaMain runs the Java class main (HdrJava or one of the library's
// tools) with the library and the helper on the class path, in UTC.
func javaMain(t *testing.T, stdin, main string, args ...string) string {
	t.Helper()
	hdrJava.once.Do(compileHdrJava)
	if hdrJava.skip != "" {
		t.Skip(hdrJava.skip)
	}
	if hdrJava.err != "" {
		t.Fatal(hdrJava.err)
	}
	cmd := exec.Command("java", append([]string{"-Duser.timezone=UTC", "-cp",
		hdrJava.dir + string(os.PathListSeparator) + hdrJava.jar, main}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java %s %s: %v\n%s", main, strings.Join(args, " "), err, stderr.String())
	}
	t.Logf("java %s %s: %d bytes in %v", main, args[0], len(out), time.Since(start).Round(time.Millisecond))
	return string(out)
}

// compileHdrJava compiles the helper into a fresh folder, or says why the
// tests that need it skip.
func compileHdrJava() {
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			hdrJava.skip = "no " + tool + " on PATH: HdrHistogram Java checks skipped"
			return
		}
	}
	for _, jar := range hdrJavaJars {
		if _, err := os.Stat(jar); err == nil {
			hdrJava.jar = jar
			break
		}
	}
	if hdrJava.jar == "" {
		hdrJava.skip = "no HdrHistogram jar (apt-get install libhdrhistogram-java): HdrHistogram Java checks skipped"
		return
	}
	dir, err := os.MkdirTemp("", "benchtui-hdrjava-")
	if err != nil {
		hdrJava.err = err.Error()
		return
	}
	hdrJava.dir = dir
	src, _ := filepath.Abs(filepath.Join("testdata", "hdrjava", "HdrJava.java"))
	out, err := exec.Command("javac", "-d", dir, "-cp", hdrJava.jar, src).CombinedOutput()
	if err != nil {
		hdrJava.err = "javac: " + err.Error() + "\n" + string(out)
	}
}
