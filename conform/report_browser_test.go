package conform

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/browsertest"
)

// The HTML report as a real browser builds it: the document Chromium makes
// of it has the tables with their captions, the statuses in words and the
// evidence disclosures, and not one element from the producer's words.
func TestHTMLReportInBrowser(t *testing.T) {
	t.Parallel()
	browser := browsertest.Chromium(t)
	r := sampleReport(2, Pass, Fail, Warn, Skip)
	var page bytes.Buffer
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, page.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, append(browsertest.Flags(filepath.Join(dir, "profile")), "--dump-dom", "file://"+path)...)
	cmd.WaitDelay = 5 * time.Second
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, errOut.String())
	}
	dom := string(out)
	for _, want := range []string{
		`<html lang="en">`,
		"<caption>Level 1, notification: 2 tests, in the order they ran</caption>",
		"<caption>Level 2, interactive: 2 tests, in the order they ran</caption>",
		"<strong>Passed</strong>", "<strong>Failed</strong>", "<strong>Warning</strong>", "<strong>Skipped</strong>",
		"<summary>2 items of evidence for P1-test-a</summary>",
		"&lt;script&gt;alert(1)&lt;/script&gt;",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's document lacks %q", want)
		}
	}
	if strings.Contains(dom, "<script>") {
		t.Error("the producer's words made a script element in the browser")
	}
}
