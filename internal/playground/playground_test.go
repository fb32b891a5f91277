package playground

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequestWithContext(t.Context(), http.MethodGet, path, nil))
	resp := w.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestPageReferencesNoExternalURL is the offline check of the playground in `make test`:
// every script, stylesheet and link of the page is a path on this server that answers
// 200, inline code names no URL, and the stylesheets import nothing and use only data:
// URLs. (`make e2e` loads the page in Chromium with every other host refused.)
func TestPageReferencesNoExternalURL(t *testing.T) {
	h := Handler(Config{Title: "Pick'Em API", Endpoint: "/graphql", SignIn: "Paste a token <here> & run"})
	resp, body := get(t, h, "/")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(body, "Paste a token &lt;here&gt; &amp; run") {
		t.Errorf("the page does not show the sign-in hint (escaped):\n%s", body)
	}

	var refs, inline []string
	z := html.NewTokenizer(strings.NewReader(body))
	for inScript := false; ; {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatal(z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			inScript = tok.Data == "script" || tok.Data == "style"
			for _, a := range tok.Attr {
				switch a.Key {
				case "src", "href", "action", "srcset", "poster", "data":
					refs = append(refs, a.Val)
				}
			}
		case html.TextToken:
			if inScript {
				inline = append(inline, tok.Data)
			}
		case html.EndTagToken:
			inScript = false
		}
	}
	if len(refs) != 4 {
		t.Errorf("the page references %d files, want 4 (3 scripts, 1 stylesheet): %v", len(refs), refs)
	}
	for _, ref := range refs {
		u, err := url.Parse(ref)
		if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, AssetsPath) {
			t.Errorf("reference %q is not a path under %s on this server", ref, AssetsPath)
			continue
		}
		if resp, b := get(t, h, u.Path); resp.StatusCode != http.StatusOK || len(b) < 1000 {
			t.Errorf("GET %s: %d, %d bytes", u.Path, resp.StatusCode, len(b))
		}
	}
	for _, code := range inline {
		if strings.Contains(code, "http://") || strings.Contains(code, "https://") || strings.Contains(code, "import(") {
			t.Errorf("inline code names a URL:\n%s", code)
		}
	}

	urlRef := regexp.MustCompile(`url\(\s*['"]?([^'")\s]*)`)
	for _, css := range []string{"graphiql.min.css"} {
		_, b := get(t, h, AssetsPath+css)
		if strings.Contains(b, "@import") {
			t.Errorf("%s imports another stylesheet", css)
		}
		for _, m := range urlRef.FindAllStringSubmatch(b, -1) {
			if !strings.HasPrefix(m[1], "data:") {
				t.Errorf("%s uses url(%s)", css, m[1])
			}
		}
	}
}

// TestAssetsAreTheVendoredFiles: every file listed in assets/VERSIONS has the SHA-256 the
// vendoring script checked, and nothing else is served.
func TestAssetsAreTheVendoredFiles(t *testing.T) {
	versions, err := assets.ReadFile("assets/VERSIONS")
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, line := range strings.Split(string(versions), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		b, err := assets.ReadFile("assets/" + f[0])
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := "sha256-" + base64.StdEncoding.EncodeToString(sum[:]); got != f[1] {
			t.Errorf("%s: %s, VERSIONS says %s", f[0], got, f[1])
		}
		listed++
	}
	if listed != 4 {
		t.Errorf("VERSIONS lists %d files, want 4", listed)
	}
	h := Handler(Config{Endpoint: "/graphql"})
	if resp, _ := get(t, h, AssetsPath+"nothing.js"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET a file that is not there: %d", resp.StatusCode)
	}
	if resp, _ := get(t, h, "/other"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /other: %d", resp.StatusCode)
	}
}

// TestLambdaDoesNotCarryThePlayground: the vendored files are for the local server only.
func TestLambdaDoesNotCarryThePlayground(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "github.com/pickem/api/lambda").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if slices.Contains(deps, "github.com/pickem/api/internal/playground") || !slices.Contains(deps, "github.com/pickem/api/server") {
		t.Fatalf("the Lambda binary's packages include internal/playground (or the list is wrong):\n%s", out)
	}
}
