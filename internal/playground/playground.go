// Package playground serves GraphiQL from files vendored in this repository
// (assets/, see scripts/vendor-playground.sh), so the local server's playground works with
// no network. Only the local server imports it: the Lambda binary does not carry the
// files (it serves gqlgen's page, which loads them from a CDN, when PICKEM_PLAYGROUND is
// set).
package playground

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
)

//go:embed assets
var assets embed.FS

// AssetsPath is the URL path the page loads its scripts and styles from.
const AssetsPath = "/playground/"

// Config is what the page shows.
type Config struct {
	Title    string
	Endpoint string // the GraphQL endpoint, a path on this server ("/graphql")
	// SignIn says how to get a token, shown above the editor (plain text).
	SignIn string
}

// Handler serves the page at / and its files under AssetsPath.
func Handler(cfg Config) http.Handler {
	files, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded directory is always there
	}
	static := http.StripPrefix(AssetsPath, http.FileServerFS(files))
	mux := http.NewServeMux()
	mux.Handle("GET "+AssetsPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		static.ServeHTTP(w, r)
	}))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_ = page.Execute(w, pageData{Config: cfg, Assets: AssetsPath})
	})
	return mux
}

type pageData struct {
	Config
	Assets string
}

// page is the playground. GraphiQL keeps the query, variables and headers in the
// browser's localStorage (shouldPersistHeaders), so a pasted token survives reloads; dev
// tokens survive server restarts too (the dev secret lives in the -data directory).
var page = template.Must(template.New("playground").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<link rel="stylesheet" href="{{.Assets}}graphiql.min.css">
<style>
  html, body { height: 100%; margin: 0; }
  body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
  #signin { padding: 6px 12px; font-size: 13px; background: #f3f4f6; border-bottom: 1px solid #d1d5db; }
  #signin code { background: #e5e7eb; padding: 0 3px; border-radius: 3px; }
  #graphiql { flex: 1; min-height: 0; }
  #status { padding: 2rem; font-size: 1.25rem; }
</style>
</head>
<body>
<div id="signin">{{.SignIn}}</div>
<div id="graphiql"><div id="status">Loading the playground…</div></div>
<script>
  // Says why the page stays empty if a script could not be loaded from this server.
  function assetFailed(name) {
    document.getElementById('status').textContent =
      'The playground could not load ' + name + ' from this server ({{.Assets}}): is it still running?';
  }
</script>
<script src="{{.Assets}}react.production.min.js" onerror="assetFailed('React')"></script>
<script src="{{.Assets}}react-dom.production.min.js" onerror="assetFailed('ReactDOM')"></script>
<script src="{{.Assets}}graphiql.min.js" onerror="assetFailed('GraphiQL')"></script>
<script>
  if (window.GraphiQL && window.React && window.ReactDOM) {
    const fetcher = GraphiQL.createFetcher({ url: location.origin + {{.Endpoint}} });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, {
        fetcher: fetcher,
        isHeadersEditorEnabled: true,
        shouldPersistHeaders: true,
        defaultQuery: '# The events, newest first. Ctrl-Enter runs the query.\n' +
          '{\n  events(first: 5) {\n    edges { node { id name startsAt state } }\n  }\n}\n',
      }),
    );
  }
</script>
</body>
</html>
`))
