// Package web serves the reader's side of textbook-rag: the textbook as
// HTML pages under /docs and the embeddable chat widget at /widget.js.
//
// The widget is one vanilla-JS file; any page can add it with
//
//	<script src="https://TUTOR-HOST/widget.js"
//	        data-api="https://TUTOR-HOST"
//	        data-book-url="https://COURSE-SITE/docs"></script>
//
// data-api is the origin of the chat API ("" = the page's own origin);
// data-book-url is where source links point, as
// data-book-url/<path>#<anchor>, path being the source's page path.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	chunker "github.com/textbook-rag/rag/markdown"
)

//go:embed templates/page.html static/page.css static/page.js static/widget.js static/widget.css
var assets embed.FS

// Options configure a Handler.
type Options struct {
	// Title is the course's name: in the pages' header and title, and in
	// the widget's header; default "Textbook".
	Title string
	// APIBase is the chat API's origin for the widget on these pages;
	// "" means the same origin.
	APIBase string
	// BookURL is where the widget's source links point; "" means this
	// handler's own /docs.
	BookURL string
}

// Handler serves the book pages and the widget.
type Handler struct {
	opts   Options
	book   *book
	page   *template.Template
	css    template.CSS
	widget asset
	// pageJS is the page's own script: the chapters behind a menu button
	// on a narrow screen.
	pageJS asset
	// favicon is /favicon.ico, which browsers ask every site for.
	favicon asset
	mux     *http.ServeMux
	csp     string
}

type asset struct {
	body []byte
	etag string
}

// New prepares the pages of the book read into tree (markdown.ReadSite's
// Tree), in its order; a nil tree is an empty book.
func New(tree *chunker.Tree, opts Options) (*Handler, error) {
	if opts.Title == "" {
		opts.Title = "Textbook"
	}
	opts.APIBase = strings.TrimRight(opts.APIBase, "/")
	if opts.BookURL == "" {
		opts.BookURL = "/docs"
	}
	opts.BookURL = strings.TrimRight(opts.BookURL, "/")
	b, err := loadBook(tree)
	if err != nil {
		return nil, fmt.Errorf("load book: %w", err)
	}
	h := &Handler{opts: opts, book: b}
	h.page, err = template.ParseFS(assets, "templates/page.html")
	if err != nil {
		return nil, fmt.Errorf("parse page template: %w", err)
	}
	css, err := assets.ReadFile("static/page.css")
	if err != nil {
		return nil, err
	}
	h.css = template.CSS(css)
	if h.widget, err = buildWidget(opts.Title); err != nil {
		return nil, err
	}
	js, err := assets.ReadFile("static/page.js")
	if err != nil {
		return nil, err
	}
	h.pageJS = asset{body: js, etag: etag(js)}
	if h.favicon, err = buildFavicon(); err != nil {
		return nil, err
	}
	connect := "'self'"
	if u, err := url.Parse(opts.APIBase); err == nil && u.Scheme != "" && u.Host != "" {
		connect += " " + u.Scheme + "://" + u.Host
	}
	h.csp = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; connect-src " + connect + "; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /widget.js", h.serveWidget)
	h.mux.HandleFunc("GET /page.js", h.servePageJS)
	h.mux.HandleFunc("GET /favicon.ico", h.serveFavicon)
	h.mux.HandleFunc("GET /{$}", h.serveHome)
	h.mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusFound) })
	h.mux.HandleFunc("GET /docs/{route...}", h.serveChapter)
	h.mux.HandleFunc("GET /", h.serveNotFound)
	return h, nil
}

// buildWidget puts widget.css and the course's name into widget.js, so
// the widget is one file whose styles live in its shadow root, and which
// names the course on any site that embeds it.
func buildWidget(course string) (asset, error) {
	js, err := assets.ReadFile("static/widget.js")
	if err != nil {
		return asset{}, err
	}
	css, err := assets.ReadFile("static/widget.css")
	if err != nil {
		return asset{}, err
	}
	for slot, value := range map[string]string{`"__WIDGET_CSS__"`: string(css), `"__COURSE_NAME__"`: course} {
		// JSON is a JavaScript string literal; with HTML escaped (<, >, &
		// as \u003c...) a name cannot end the script it is in.
		quoted, err := json.Marshal(value)
		if err != nil {
			return asset{}, err
		}
		if !bytes.Contains(js, []byte(slot)) {
			return asset{}, fmt.Errorf("widget.js has no %s slot", slot)
		}
		js = bytes.Replace(js, []byte(slot), quoted, 1)
	}
	return asset{body: js, etag: etag(js)}, nil
}

func etag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) serveWidget(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	// Pages on other origins load the widget with a plain <script>; this
	// also lets them fetch it with CORS (e.g. for integrity checks).
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("ETag", h.widget.etag)
	http.ServeContent(w, r, "widget.js", time.Time{}, bytes.NewReader(h.widget.body))
}

func (h *Handler) servePageJS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("ETag", h.pageJS.etag)
	http.ServeContent(w, r, "page.js", time.Time{}, bytes.NewReader(h.pageJS.body))
}

func (h *Handler) serveHome(w http.ResponseWriter, r *http.Request) {
	if len(h.book.chapters) == 0 {
		h.writePage(w, r, http.StatusOK, pageData{PageTitle: "Welcome", Welcome: true})
		return
	}
	if c, ok := h.book.byRoute[""]; ok {
		h.writeChapter(w, r, c) // the page a site shows at its docs root
		return
	}
	h.writeChapter(w, r, h.book.chapters[0])
}

// serveChapter serves a page at its path under /docs; a page's id or its
// module's folder redirects there.
func (h *Handler) serveChapter(w http.ResponseWriter, r *http.Request) {
	route := strings.Trim(r.PathValue("route"), "/")
	if c, ok := h.book.byRoute[route]; ok {
		h.writeChapter(w, r, c)
		return
	}
	if c := h.book.find(route); c != nil {
		http.Redirect(w, r, c.URL, http.StatusFound)
		return
	}
	h.serveNotFound(w, r)
}

func (h *Handler) serveNotFound(w http.ResponseWriter, r *http.Request) {
	h.writePage(w, r, http.StatusNotFound, pageData{PageTitle: "Page not found", NotFound: true})
}

// pageData is what templates/page.html shows.
type pageData struct {
	BookTitle string
	PageTitle string
	CSS       template.CSS
	Nav       []navEntry
	Chapter   *chapter
	Prev      *chapter
	Next      *chapter
	Welcome   bool
	NotFound  bool
	APIBase   string
	BookURL   string
}

type navEntry struct {
	Title    string
	Chapter  *chapter // a root chapter
	Chapters []navLink
	Open     bool
}

type navLink struct {
	*chapter
	Current bool
}

func (h *Handler) writeChapter(w http.ResponseWriter, r *http.Request, c *chapter) {
	d := pageData{PageTitle: c.Title, Chapter: c}
	for i, x := range h.book.chapters {
		if x == c {
			if i > 0 {
				d.Prev = h.book.chapters[i-1]
			}
			if i+1 < len(h.book.chapters) {
				d.Next = h.book.chapters[i+1]
			}
		}
	}
	h.writePage(w, r, http.StatusOK, d)
}

func (h *Handler) writePage(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	d.BookTitle, d.CSS, d.APIBase, d.BookURL = h.opts.Title, h.css, h.opts.APIBase, h.opts.BookURL
	for _, it := range h.book.items {
		if it.Chapter != nil {
			d.Nav = append(d.Nav, navEntry{Title: it.Chapter.Label, Chapter: it.Chapter, Open: it.Chapter == d.Chapter})
			continue
		}
		e := navEntry{Title: it.Module.Title}
		for _, c := range it.Module.Chapters {
			cur := c == d.Chapter
			e.Open = e.Open || cur
			e.Chapters = append(e.Chapters, navLink{chapter: c, Current: cur})
		}
		d.Nav = append(d.Nav, e)
	}
	var buf bytes.Buffer
	if err := h.page.Execute(&buf, d); err != nil {
		http.Error(w, "render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	if status != http.StatusOK {
		hd.Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		w.Write(buf.Bytes())
		return
	}
	hd.Set("Cache-Control", "public, max-age=60")
	hd.Set("ETag", etag(buf.Bytes()))
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(buf.Bytes()))
}
