package http

import "html/template"

var loginTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Course report · sign in</title>
<style>body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1d2330;background:#f6f7f9}
.box{max-width:360px;margin:15vh auto;padding:24px;background:#fff;border:1px solid #e3e6eb;border-radius:10px}
@media (max-width:420px){.box{margin:8vh 12px}}
h1{font-size:1.25rem;margin:0 0 12px}label{display:block;margin-bottom:6px}
input{width:100%;box-sizing:border-box;padding:8px;font:inherit;border:1px solid #c9ced6;border-radius:6px}
button{margin-top:12px;padding:8px 16px;font:inherit;border:0;border-radius:6px;background:#1d2330;color:#fff}
code{font-size:.9em;background:#f1f3f6;padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
.problem{color:#a3321b}</style></head>
<body>
{{- if .Off}}
<main class="box"><h1>Course report</h1>
<p class="problem">The course report is off: this tutor was started without an admin token.</p>
<p>The report shows what students asked, so only the course team may open it. Start the tutor with <code>--admin-token</code> (or the environment variable <code>TEXTBOOK_RAG_ADMIN_TOKEN</code>), then sign in here with that token.</p></main>
{{- else}}
<form class="box" method="post" action="/admin/login"><h1>Course report</h1>
{{with .Problem}}<p class="problem">{{.}}</p>{{end}}
<label for="token">Admin token</label><input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Open the report</button></form>
{{- end}}
</body></html>`))

// loginData is what the sign-in page shows: a problem to report, and
// whether signing in is off (no admin token configured).
type loginData struct {
	Problem string
	Off     bool
}
