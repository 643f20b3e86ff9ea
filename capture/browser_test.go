package capture

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/browsertest"
)

// headless runs Chromium headless on the file at page with extra flags and
// returns its standard output.
func headless(t *testing.T, browser, page string, flags ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(browsertest.Flags(t.TempDir()), flags...)
	cmd := exec.CommandContext(ctx, browser, append(args, "file://"+page)...)
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, errOut.String())
	}
	return out.Bytes()
}

// The HTML report of a capture with a violation, opened in a real browser:
// the screenshot is not blank and shows the red mark of the violation, and
// the document the browser built holds the text alternative: the SVG's
// title and description, and a table row, in words, for every step.
func TestReportInBrowser(t *testing.T) {
	browser := browsertest.Chromium(t)
	r, err := Open("testdata/corpus/after-reject.aaep")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tr, err := BuildTrace(r, "after-reject.aaep", CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := tr.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	shot := filepath.Join(dir, "report.png")
	headless(t, browser, page, "--hide-scrollbars", "--screenshot="+shot, "--window-size=1200,900")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ink, red, colours := inkAndRed(img)
	t.Logf("screenshot %s: %v, %.1f%% ink, %d pixels of the violation's red, %d colours", shot, img.Bounds().Size(), 100*ink, red, colours)
	if b := img.Bounds().Size(); b.X != 1200 || b.Y != 900 {
		t.Errorf("screenshot is %v, want 1200x900", b)
	}
	if ink < 0.01 || colours < 8 {
		t.Errorf("the screenshot looks blank: %.2f%% ink, %d colours", 100*ink, colours)
	}
	if red < 50 {
		t.Errorf("the violation's red mark is not on the screenshot (%d red pixels)", red)
	}
	if dst := os.Getenv("AAEP_KEEP_SCREENSHOT"); dst != "" {
		if err := os.WriteFile(dst, mustRead(t, shot), 0o644); err != nil {
			t.Error(err)
		}
	}

	dom := string(headless(t, browser, page, "--dump-dom"))
	steps := 0
	for _, s := range tr.Sessions {
		steps += len(s.Steps)
	}
	for _, want := range []string{
		`<title id="t0">Timeline of session sess_reject01</title>`,
		`<desc id="d0">`, "The table below lists every step in words.",
		"<caption>Steps of session sess_reject01, in the order received</caption>",
		"<strong>VIOLATION</strong>", "spec section 4.5.3",
		"<figcaption>Timeline of session sess_reject01:",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's document lacks %q", want)
		}
	}
	if rows := strings.Count(dom, `<th scope="row">`); rows != steps {
		t.Errorf("%d table rows in the browser's document, want one for each of the %d steps", rows, steps)
	}
}

// inkAndRed measures a screenshot: the share of pixels that are not the
// page background (white, or near-black in a dark theme), how many are the
// strong red of a violation mark, and how many colours there are.
func inkAndRed(img image.Image) (ink float64, red, colours int) {
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	br, bgc, bb, _ := bg.RGBA()
	seen := map[uint32]bool{}
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != br || g != bgc || bl != bb {
				inked++
			}
			if r>>8 > 150 && g>>8 < 60 && bl>>8 < 60 {
				red++
			}
			if len(seen) < 1000 {
				seen[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
			}
		}
	}
	return float64(inked) / float64(b.Dx()*b.Dy()), red, len(seen)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
