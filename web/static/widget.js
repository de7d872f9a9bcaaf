/*
 * textbook-rag chat widget. Add it to any page with
 *
 *   <script src="https://TUTOR-HOST/widget.js"
 *           data-api="https://TUTOR-HOST"
 *           data-book-url="https://COURSE-SITE/docs"></script>
 *
 * data-api: origin of the chat API ("" = this page's origin; absent = the
 * origin the script came from). data-book-url: where source links point
 * (absent = <script origin>/docs).
 *
 * Keyboard: Alt+/ opens and closes the tutor (with text selected on the
 * page, it opens with that text attached); Enter sends; Shift+Enter adds a
 * new line; Esc closes and returns focus to the tutor button.
 *
 * Everything lives in a shadow root: no styles leak in or out. Server text
 * is only ever put into the page with textContent / DOM nodes.
 */
(function () {
  "use strict";
  if (window.TextbookRAG) return;

  var CSS = "__WIDGET_CSS__";
  var COURSE = "__COURSE_NAME__"; // the course's name, filled in by the server
  var SESSION_KEY = "textbook-rag:session";
  var OPEN_KEY = "textbook-rag:open";
  var BACK_KEY = "textbook-rag:back"; // set while the reader visits a source
  var QUOTES_KEY = "textbook-rag:quotes:"; // + session id
  var FEEDBACK_KEY = "textbook-rag:feedback:"; // + session id
  var MAX_COMMENT = 500;
  var QUOTE_CHARS = 280;
  var MAX_SELECTED = 5000;

  var script = document.currentScript;
  var scriptOrigin = location.origin;
  try { if (script && script.src) scriptOrigin = new URL(script.src, location.href).origin; } catch (e) { /* keep page origin */ }
  var apiBase = trimSlash(attr("data-api", scriptOrigin));
  var bookURL = trimSlash(attr("data-book-url", scriptOrigin + "/docs"));

  function attr(name, fallback) {
    if (!script || !script.hasAttribute(name)) return fallback;
    return script.getAttribute(name) || "";
  }
  function trimSlash(s) { return String(s).replace(/\/+$/, ""); }

  // ---- small DOM helpers -------------------------------------------------

  function el(tag, props, children) {
    var n = document.createElement(tag);
    if (props) {
      for (var k in props) {
        if (!Object.prototype.hasOwnProperty.call(props, k)) continue;
        var v = props[k];
        if (k === "text") n.textContent = v;
        else if (k === "class") n.className = v;
        else if (k.indexOf("on") === 0) n.addEventListener(k.slice(2), v);
        else if (v === true) n.setAttribute(k, "");
        else if (v !== false && v != null) n.setAttribute(k, v);
      }
    }
    (children || []).forEach(function (c) {
      if (c != null) n.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return n;
  }

  function storage(kind) {
    try { return window[kind]; } catch (e) { return null; }
  }
  function load(kind, key) {
    var s = storage(kind);
    try { return s ? s.getItem(key) : null; } catch (e) { return null; }
  }
  function save(kind, key, value) {
    var s = storage(kind);
    try {
      if (!s) return;
      if (value == null) s.removeItem(key); else s.setItem(key, value);
    } catch (e) { /* private mode: the conversation just won't persist */ }
  }

  // ---- rendering answers ---------------------------------------------------

  // The answer renderer: a small Markdown subset (paragraphs, headings,
  // lists, tables, code, quotes, rules, emphasis, links) turned into DOM
  // nodes. Text only ever becomes text nodes, so anything else in an answer,
  // HTML included, shows as the characters it is.

  var INLINE = new RegExp([
    // 1: math, kept as written: $$…$$, \(…\), \[…\], and $…$ as pandoc
    // reads it (a non-space inside each `$`, no digit after the closing
    // one, so "$5 and $10" is prices)
    "(\\$\\$[\\s\\S]+?\\$\\$|\\\\\\([\\s\\S]+?\\\\\\)|\\\\\\[[\\s\\S]+?\\\\\\]|\\$(?=[^\\s$])(?:[^$\\\\]|\\\\[\\s\\S])*?[^\\s\\\\$]\\$(?!\\d))",
    "\\\\([\\\\`*_\\[\\]()#|>~-])",              // 2: backslash escape
    "(`+)([\\s\\S]*?[^`])\\3(?!`)",                 // 3, 4: code span
    "\\*\\*(?=\\S)((?:(?!\\*\\*)[\\s\\S])*?\\S)\\*\\*", // 5: strong
    "(^|[^\\w])__(?=\\S)((?:(?!__)[\\s\\S])*?\\S)__(?!\\w)", // 6, 7: strong
    "\\*(?=[^\\s*])([\\s\\S]*?[^\\s*])\\*",        // 8: emphasis
    "(^|[^\\w])_(?=[^\\s_])([\\s\\S]*?[^\\s_])_(?!\\w)", // 9, 10: emphasis
    "\\[([^\\]]+)\\]\\(\\s*((?:[^()\\s]|\\([^()\\s]*\\))+)(?:\\s+\"[^\"]*\")?\\s*\\)" // 11, 12: link
  ].join("|"), "g");

  // safeHref admits absolute web links only: a relative link in a quoted
  // passage is relative to the book's source, not to this page.
  function safeHref(href) {
    try {
      var u = new URL(href);
      return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
    } catch (e) { return null; }
  }

  function appendInline(parent, text) {
    var re = new RegExp(INLINE.source, "g");
    var last = 0, m;
    function textUpTo(i) { if (i > last) parent.appendChild(document.createTextNode(text.slice(last, i))); }
    while ((m = re.exec(text)) !== null) {
      textUpTo(m.index);
      if (m[1] !== undefined) parent.appendChild(el("span", { class: "math", text: m[1] }));
      else if (m[2] !== undefined) parent.appendChild(document.createTextNode(m[2]));
      else if (m[3] !== undefined) parent.appendChild(el("code", { text: m[4].replace(/^ (.*) $/, "$1") }));
      else if (m[5] !== undefined) appendInline(parent.appendChild(el("strong")), m[5]);
      else if (m[7] !== undefined) { parent.appendChild(document.createTextNode(m[6])); appendInline(parent.appendChild(el("strong")), m[7]); }
      else if (m[8] !== undefined) appendInline(parent.appendChild(el("em")), m[8]);
      else if (m[10] !== undefined) { parent.appendChild(document.createTextNode(m[9])); appendInline(parent.appendChild(el("em")), m[10]); }
      else if (m[11] !== undefined) {
        var href = safeHref(m[12]);
        var target = href ? parent.appendChild(el("a", { href: href, target: "_blank", rel: "noopener noreferrer" })) : parent;
        appendInline(target, m[11]);
      }
      last = re.lastIndex;
    }
    textUpTo(text.length);
  }

  // A fence's first word is its language unless it is an attribute;
  // its title="…" is the code's caption.
  var FENCE = /^\s{0,3}(`{3,}|~{3,})\s*(?:([\w+#.-]+)(?![\w=]))?(.*)$/;
  var CODE_TITLE = /(?:^|\s)title="([^"]*)"/;
  var RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
  var HEADING = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/;
  var QUOTE = /^\s{0,3}>\s?(.*)$/;
  var ITEM = /^(\s*)(?:([-*+\u2022])|(\d{1,9})[.)])\s+(.*)$/;
  var DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

  // splitRow cuts a table row into cells at pipes that are neither escaped
  // nor inside a code span.
  function splitRow(line) {
    var s = line.trim();
    if (s.charAt(0) === "|") s = s.slice(1);
    if (s.charAt(s.length - 1) === "|" && s.charAt(s.length - 2) !== "\\") s = s.slice(0, -1);
    var cells = [], cur = "", code = false;
    for (var i = 0; i < s.length; i++) {
      var c = s.charAt(i);
      if (c === "\\" && s.charAt(i + 1) === "|") { cur += "|"; i++; continue; }
      if (c === "`") code = !code;
      if (c === "|" && !code) { cells.push(cur.trim()); cur = ""; continue; }
      cur += c;
    }
    cells.push(cur.trim());
    return cells;
  }

  function isTableStart(lines, i) {
    return lines[i].indexOf("|") >= 0 && i + 1 < lines.length && DELIMITER.test(lines[i + 1]) &&
      lines[i + 1].indexOf("-") >= 0 && (lines[i + 1].indexOf("|") >= 0 || splitRow(lines[i]).length === 1);
  }

  function renderTable(lines, i) {
    var head = splitRow(lines[i]);
    var align = splitRow(lines[i + 1]).map(function (d) {
      var l = d.charAt(0) === ":", r = d.charAt(d.length - 1) === ":";
      return l && r ? "center" : r ? "right" : l ? "left" : "";
    });
    function row(cells, tag) {
      var tr = el("tr");
      for (var c = 0; c < head.length; c++) {
        var cell = el(tag, align[c] ? { class: "align-" + align[c] } : null);
        appendInline(cell, cells[c] || "");
        tr.appendChild(cell);
      }
      return tr;
    }
    var tbody = el("tbody");
    for (i += 2; i < lines.length && lines[i].trim() && lines[i].indexOf("|") >= 0; i++) tbody.appendChild(row(splitRow(lines[i]), "td"));
    var table = el("table", null, [el("thead", null, [row(head, "th")])]);
    if (tbody.children.length) table.appendChild(tbody);
    return { node: el("div", { class: "table" }, [table]), next: i };
  }

  // renderRich turns an answer's Markdown into a DocumentFragment.
  function renderRich(text) {
    var frag = document.createDocumentFragment();
    var lines = String(text || "").replace(/\r\n?/g, "\n").split("\n");
    var para = null;
    var lists = []; // open lists, outermost first: {indent, node, kind}
    function endBlocks() { para = null; lists = []; }
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i], m;
      if ((m = FENCE.exec(line))) {
        var code = [], close = new RegExp("^\\s*" + m[1].charAt(0) + "{" + m[1].length + ",}\\s*$");
        for (i++; i < lines.length && !close.test(lines[i]); i++) code.push(lines[i]);
        var c = el("code", { text: code.join("\n") });
        if (m[2]) c.setAttribute("data-lang", m[2]);
        var pre = el("pre", null, [c]), title = CODE_TITLE.exec(m[3]);
        if (title && title[1].trim()) pre = el("figure", { class: "code" }, [el("figcaption", { text: title[1].trim() }), pre]);
        if (lists.length) lists[lists.length - 1].node.lastChild.appendChild(pre); else { frag.appendChild(pre); endBlocks(); }
        para = null;
        continue;
      }
      if (!line.trim()) { para = null; if (i + 1 < lines.length && !/^\s+\S/.test(lines[i + 1])) lists = []; continue; }
      if (RULE.test(line)) { endBlocks(); frag.appendChild(el("hr")); continue; }
      if (isTableStart(lines, i)) {
        endBlocks();
        var t = renderTable(lines, i);
        frag.appendChild(t.node);
        i = t.next - 1;
        continue;
      }
      if ((m = HEADING.exec(line))) {
        endBlocks();
        var h = el("p", { class: "h" });
        appendInline(h, m[1]);
        frag.appendChild(h);
        continue;
      }
      if ((m = QUOTE.exec(line))) {
        endBlocks();
        var quoted = [m[1]];
        while (i + 1 < lines.length && (m = QUOTE.exec(lines[i + 1]))) { quoted.push(m[1]); i++; }
        frag.appendChild(el("blockquote", null, [renderRich(quoted.join("\n"))]));
        continue;
      }
      if ((m = ITEM.exec(line))) {
        var indent = m[1].replace(/\t/g, "    ").length, kind = m[2] ? "ul" : "ol";
        while (lists.length && lists[lists.length - 1].indent > indent) lists.pop();
        var top = lists[lists.length - 1];
        if (!top || top.indent < indent || top.kind !== kind) {
          if (top && top.indent === indent) lists.pop();
          var list = el(kind);
          if (kind === "ol" && m[3] !== "1") list.setAttribute("start", String(parseInt(m[3], 10)));
          var parent = lists.length ? lists[lists.length - 1].node.lastChild : frag;
          (parent || frag).appendChild(list);
          lists.push(top = { indent: indent, node: list, kind: kind });
        }
        var li = el("li");
        appendInline(li, m[4]);
        top.node.appendChild(li);
        para = null;
        continue;
      }
      if (lists.length && /^\s+\S/.test(line)) { // an item's continuation line
        var item = lists[lists.length - 1].node.lastChild;
        item.appendChild(document.createTextNode(" "));
        appendInline(item, line.trim());
        continue;
      }
      lists = [];
      if (!para) { para = el("p"); frag.appendChild(para); } else { para.appendChild(el("br")); }
      appendInline(para, line.trim());
    }
    return frag;
  }

  // A source's path is its page's path under the book URL, at any depth;
  // a server without it gave module_id/chapter_id.
  function sourceHref(s) {
    var parts = [];
    if (typeof s.path === "string" && s.path !== "") {
      parts = s.path.split("/").filter(Boolean).map(encodeURIComponent);
    } else {
      if (s.module_id) parts.push(encodeURIComponent(s.module_id));
      parts.push(encodeURIComponent(s.chapter_id || ""));
    }
    return bookURL + "/" + parts.join("/") + (s.anchor ? "#" + encodeURIComponent(s.anchor) : "");
  }

  function renderSources(box, sources) {
    box.textContent = "";
    var seen = {};
    var list = (sources || []).filter(function (s) {
      var key = sourceHref(s);
      if (!s || !s.chapter_id || seen[key]) return false;
      seen[key] = true;
      return true;
    });
    if (!list.length) { box.hidden = true; return; }
    box.hidden = false;
    var ul = el("ul");
    list.forEach(function (s) {
      ul.appendChild(el("li", null, [sourceLink(s, s.section_heading || s.chapter_id)]));
    });
    box.appendChild(el("p", { class: "sources-label", text: "Sources" }));
    box.appendChild(ul);
  }

  // sourceLink is a link into the book: a new tab for a book on another
  // site, else a visit that gets the tutor out of the way.
  function sourceLink(s, text) {
    var a = el("a", { href: sourceHref(s), class: "source", text: text });
    var external = false;
    try { external = new URL(bookURL, location.href).origin !== location.origin; } catch (e) { /* relative */ }
    if (external) { a.target = "_blank"; a.rel = "noopener"; } else a.addEventListener("click", visitSource);
    return a;
  }

  // visitSource gets the tutor out of the way of the section a source link
  // leads to: the panel collapses, and the launcher offers the way back.
  function visitSource(e) {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    save("sessionStorage", BACK_KEY, String(log.scrollTop));
    close(false);
    setBack(true);
  }

  // REFUSALS says, per refusal reason, what the refusal means for the
  // reader and what to do next. action names a button: "reask" asks the
  // same question of the whole book, "edit" puts it back into the box.
  var REFUSALS = {
    empty_retrieval: { label: "Not in the textbook", next: "Ask about something the course covers." },
    insufficient_context: { label: "Not enough in the textbook to be sure", next: "A more specific question may find it.", action: "edit", button: "Edit the question", where: true },
    out_of_scope: { label: "Outside this course", next: "Ask about one of the course's topics." },
    selected_text_insufficient: { label: "Not in your selection", next: "Ask without it?", action: "reask", button: "Ask the whole textbook" }
  };
  var OTHER_REFUSAL = { label: "No answer from the textbook", next: "" };

  // ---- the widget ------------------------------------------------------------

  var host = el("div", { id: "textbook-rag-widget" });
  host.style.cssText = "all: initial; display: block;";
  var root = host.attachShadow({ mode: "open" });
  root.appendChild(el("style", { text: CSS }));

  var launcherIcon = el("span", { class: "launcher-icon", "aria-hidden": "true", text: "?" });
  var launcherText = el("span", { class: "launcher-text", text: "Ask the tutor" });
  var launcher = el("button", {
    type: "button", class: "launcher", "aria-label": "Ask the textbook tutor (Alt+/)",
    title: "Ask the textbook tutor (Alt+/)", "aria-expanded": "false", "aria-controls": "trag-panel"
  }, [launcherIcon, launcherText]);

  var askSel = el("button", { type: "button", class: "ask-selection", hidden: true, "aria-label": "Ask the tutor about the selected text" },
    [el("span", { "aria-hidden": "true", text: "\u275D " }), "Ask about this"]);

  var log = el("div", { class: "log" });
  var announce = el("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "true" });
  var input = el("textarea", { class: "input", rows: "2", "aria-label": "Your question", placeholder: "Ask a question about the textbook\u2026", maxlength: "1000" });
  var chipText = el("span", { class: "chip-text" });
  var chipNote = el("span", { class: "chip-note", hidden: true });
  var chipRemove = el("button", { type: "button", class: "chip-remove", "aria-label": "Remove selected text", title: "Remove selected text", text: "\u00D7" });
  var chip = el("div", { class: "chip", hidden: true }, [
    el("div", { class: "chip-head" }, [el("span", { class: "chip-label", text: "Asking about your selection" }), chipRemove]),
    el("blockquote", null, [chipText]), chipNote
  ]);
  var sendBtn = el("button", { type: "submit", class: "send", "aria-label": "Send question", text: "Send" });
  var stopBtn = el("button", { type: "button", class: "stop", hidden: true, "aria-label": "Stop the answer", text: "Stop" });
  var newBtn = el("button", { type: "button", class: "new", text: "New conversation", "aria-label": "Start a new conversation" });
  var closeBtn = el("button", { type: "button", class: "close", "aria-label": "Close the tutor (Esc)", title: "Close (Esc)", text: "\u00D7" });
  var form = el("form", { class: "composer" }, [
    chip,
    el("div", { class: "row" }, [input, sendBtn, stopBtn]),
    el("p", { class: "keys", text: "Enter to send \u00B7 Shift+Enter for a new line \u00B7 Alt+/ to open or close \u00B7 Esc to close" })
  ]);
  var panel = el("section", { id: "trag-panel", class: "panel", role: "dialog", "aria-modal": "false", "aria-label": "Textbook tutor", hidden: true }, [
    el("header", null, [
      el("div", { class: "title" }, [el("h2", { text: COURSE, title: COURSE }), el("p", { text: "Answers only from the textbook, with sources." })]),
      newBtn, closeBtn
    ]),
    log, announce, form
  ]);
  // On a phone the launcher is a bar under the page; the spacer lets the
  // page's last lines scroll clear of it.
  root.appendChild(el("div", { class: "wrap" }, [askSel, panel, launcher, el("div", { class: "spacer", "aria-hidden": "true" })]));

  var state = {
    open: false,
    session: load("localStorage", SESSION_KEY),
    historyLoaded: false,
    busy: false,
    controller: null,
    attached: null, // {text, truncated}
    selection: null, // text of the page selection the "Ask about this" button offers
    // failed is the question whose asking failed, with its request id: the
    // same question asked again reuses the id, so the server stores it once
    // even if the failed try reached the history.
    failed: null // {key, id, session}
  };

  // requestID is a fresh id for one question (its tries share it).
  function requestID() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    var s = "";
    for (var i = 0; i < 4; i++) s += Math.floor(Math.random() * 0x100000000).toString(16);
    return "r-" + s + "-" + Date.now().toString(16);
  }

  // newSessionID is a random UUID (version 4) for a session the widget
  // opens; it is the session's only key, so it comes from crypto.
  function newSessionID() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = "";
    for (var i = 0; i < 16; i++) h += (b[i] + 0x100).toString(16).slice(1);
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function showEmpty() {
    log.textContent = "";
    log.appendChild(el("div", { class: "empty" }, [
      el("p", { text: "Ask anything about the textbook. Answers come only from its chapters, with links to the sections they are drawn from." }),
      el("p", { text: "Tip: select a passage on the page and choose \u201CAsk about this\u201D to ask about just that text." })
    ]));
  }
  showEmpty();

  function clearEmpty() {
    var e = log.querySelector(".empty");
    if (e) e.remove();
  }

  function nearBottom() { return log.scrollHeight - log.scrollTop - log.clientHeight < 80; }
  function scrollDown(force) { if (force || nearBottom()) log.scrollTop = log.scrollHeight; }

  function addUser(text, attached) {
    clearEmpty();
    var m = userMessage(text, attached && excerpt(attached.text, QUOTE_CHARS));
    log.appendChild(m);
    scrollDown(true);
    return m;
  }

  function userMessage(text, quote) {
    var m = el("div", { class: "msg user" });
    if (quote) m.appendChild(el("blockquote", { class: "quote", text: quote }));
    m.appendChild(el("p", { class: "text", text: text }));
    return m;
  }

  function addAssistant() {
    clearEmpty();
    var body = el("div", { class: "body" });
    var sources = el("div", { class: "sources", hidden: true });
    var m = el("div", { class: "msg assistant" }, [body, sources]);
    log.appendChild(m);
    scrollDown(true);
    return { el: m, body: body, sources: sources, text: "" };
  }

  // setPending shows that an answer is on its way until its first words
  // arrive; an LLM may take seconds.
  function setPending(a, on) {
    a.el.classList.toggle("pending", on);
    if (on) {
      a.body.replaceChildren(el("p", { class: "typing", role: "status" }, [
        el("span", { class: "dots", "aria-hidden": "true" }, [el("i"), el("i"), el("i")]),
        el("span", { class: "typing-text", text: "Looking in the textbook\u2026" })
      ]));
    }
  }

  // keepBottom runs fn and, if the log was scrolled to its end, keeps it
  // there as the content grows.
  function keepBottom(fn) {
    var stick = nearBottom();
    fn();
    if (stick) log.scrollTop = log.scrollHeight;
  }

  function showAnswer(a, text, sources) {
    keepBottom(function () {
      a.el.classList.remove("pending");
      a.body.replaceChildren(renderRich(text));
      linkPlaces(a.body, sources);
      renderSources(a.sources, sources);
    });
  }

  // PLACE is a list item that names a section of the book, as an
  // explanation lists the other sections that discuss a selection: its
  // heading in quotes, then its chapter in parentheses.
  var PLACE = /^\u201c([^\u201d]+)\u201d(?: \((.*)\))?$/;

  // placeSource is the index of the source a list item names by its
  // heading, the first not used yet; -1 for none.
  function placeSource(text, sources, used) {
    var m = PLACE.exec(String(text).trim());
    if (!m) return -1;
    for (var i = 0; i < sources.length; i++) {
      var s = sources[i];
      if (!used[i] && s && s.chapter_id && s.section_heading === m[1]) return i;
    }
    return -1;
  }

  // linkPlaces makes the sections an answer lists by name ("Other
  // sections that discuss this") links to them, as its sources are.
  function linkPlaces(body, sources) {
    if (!sources || !sources.length) return;
    var used = {};
    Array.prototype.forEach.call(body.querySelectorAll("li"), function (li) {
      if (li.children.length) return; // an item with markup is the book's text
      var i = placeSource(li.textContent, sources, used);
      if (i < 0) return;
      used[i] = true;
      li.replaceChildren(sourceLink(sources[i], li.textContent.trim()));
    });
  }

  // The reader's feedback on answers, kept per session so that a reload
  // shows what they said: {message id: {rating, comment}}.
  function loadFeedback(session) {
    try { return JSON.parse(load("localStorage", FEEDBACK_KEY + session) || "{}") || {}; } catch (e) { return {}; }
  }

  // addFeedback puts "Helpful" / "Not helpful" under an answer: one tap
  // rates it, a second tap on the other button changes the rating, and an
  // optional comment goes with it.
  function addFeedback(a, messageId) {
    if (!messageId || !state.session || a.el.querySelector(".feedback")) return;
    var session = state.session;
    var saved = loadFeedback(session)[messageId] || null;
    var box = el("div", { class: "feedback", role: "group", "aria-label": "Rate this answer" });
    var status = el("p", { class: "fb-status", role: "status", hidden: true });
    var buttons = {};
    var current = saved ? saved.rating : null, comment = saved ? saved.comment || "" : "";
    function mark() {
      Object.keys(buttons).forEach(function (r) { buttons[r].setAttribute("aria-pressed", String(r === current)); });
      more.hidden = !current || !!form.parentNode;
    }
    function post(rating, text) {
      status.hidden = true;
      status.className = "fb-status";
      return fetch(apiBase + "/api/chat/messages/" + encodeURIComponent(messageId) + "/feedback", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ session_id: session, rating: rating, comment: text })
      }).then(function (res) {
        return res.json().catch(function () { return null; }).then(function (d) {
          if (!res.ok) throw new Error((d && d.message) || "error " + res.status);
          current = d.rating; comment = d.comment || "";
          var all = loadFeedback(session);
          all[messageId] = { rating: current, comment: comment };
          save("localStorage", FEEDBACK_KEY + session, JSON.stringify(all));
          mark();
          status.textContent = comment ? "Thanks — your comment was sent." : "Thanks for the feedback.";
          status.hidden = false;
        });
      }).catch(function () {
        status.className = "fb-status error";
        status.textContent = "Your feedback could not be saved. Please try again.";
        status.hidden = false;
      });
    }
    [["helpful", "Helpful"], ["not_helpful", "Not helpful"]].forEach(function (r) {
      buttons[r[0]] = el("button", { type: "button", class: "rate", "aria-pressed": "false", "data-rating": r[0],
        onclick: function () {
          post(r[0], comment).then(function () { if (r[0] === "not_helpful" && !comment && current === "not_helpful") openComment(); });
        }, text: r[1] });
    });
    var more = el("button", { type: "button", class: "fb-more", text: "Add a comment", onclick: function () { openComment(); } });
    var area = el("textarea", { maxlength: String(MAX_COMMENT), rows: "1", "aria-label": "What was missing? (optional)", placeholder: "What was missing? (optional)" });
    var form = el("form", null, [area, el("button", { type: "submit", text: "Send" })]);
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      post(current || "not_helpful", area.value.trim()).then(function () {
        if (status.className === "fb-status") { form.remove(); mark(); }
      });
    });
    area.addEventListener("keydown", function (e) {
      e.stopPropagation();
      if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
    });
    function openComment() {
      area.value = comment;
      box.insertBefore(form, status);
      more.hidden = true;
      area.focus();
    }
    box.appendChild(el("span", { text: "Was this helpful?" }));
    box.appendChild(buttons.helpful);
    box.appendChild(buttons.not_helpful);
    box.appendChild(more);
    box.appendChild(status);
    mark();
    keepBottom(function () { a.el.appendChild(box); });
  }

  function refusalInfo(reason) {
    return Object.prototype.hasOwnProperty.call(REFUSALS, reason) ? REFUSALS[reason] : OTHER_REFUSAL;
  }

  // showRefusal shows a refusal under its reason's label, with the next
  // step; question is the question it refused, live whether it was just
  // asked (not shown again from the history).
  function showRefusal(a, text, reason, question, live) {
    keepBottom(function () {
      var info = refusalInfo(reason);
      a.el.classList.remove("pending");
      a.el.classList.add("refusal");
      if (reason) a.el.setAttribute("data-reason", reason);
      var next = null;
      if (info.next) {
        next = el("p", { class: "refusal-next" }, [el("span", { text: info.next })]);
        if (info.action && question) {
          next.appendChild(el("button", {
            type: "button", class: "refusal-action", "data-action": info.action, text: info.button,
            onclick: function () { refusalAction(info.action, question); }
          }));
        }
      }
      a.body.replaceChildren(
        el("p", { class: "refusal-label" }, [el("span", { class: "icon", "aria-hidden": "true", text: "\u2298" }), el("span", { class: "label-text", text: info.label })]),
        renderRich(text),
        next
      );
      a.sources.hidden = true;
      if (info.where && question) {
        var where = el("div", { class: "where", hidden: true });
        a.el.appendChild(where);
        if (live) showWhere(where, question);
        else offerWhere(where, question);
      }
    });
  }

  // WHERE_LINKS is how many of the book's closest sections a refusal for
  // want of context offers.
  var WHERE_LINKS = 3;

  // showWhere puts the book's sections closest to the question under an
  // insufficient_context refusal, from the tutor's site search, only
  // those the retriever is confident about (confident=1): the refusal
  // stays the spec's, and the reader still gets where to read when the
  // book really discusses the question, and no unrelated links otherwise.
  // A failed search shows nothing: the refusal already says what to do.
  // asked: the reader pressed the button for it, and is told the outcome.
  function showWhere(box, question, asked) {
    return fetch(apiBase + "/api/search?confident=1&limit=" + WHERE_LINKS + "&q=" + encodeURIComponent(question), { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (!res.ok) throw new Error("HTTP " + res.status);
        return res.json();
      })
      .then(function (data) {
        var list = data && Array.isArray(data.results) ? data.results : [];
        keepBottom(function () { renderWhere(box, list, asked); });
      })
      .catch(function (err) {
        if (!asked) { box.hidden = true; return; }
        throw err;
      });
  }

  // offerWhere is showWhere on demand, for a refusal shown again from the
  // history: a long conversation does not run a search per refusal.
  function offerWhere(box, question) {
    var b = el("button", { type: "button", class: "where-load", text: "Where does the book discuss this?" });
    b.addEventListener("click", function () {
      b.disabled = true;
      showWhere(box, question, true).catch(function () {
        b.disabled = false;
        b.textContent = "The sections could not be looked up. Try again";
      });
    });
    box.replaceChildren(b);
    box.hidden = false;
  }

  function renderWhere(box, list, asked) {
    box.textContent = "";
    if (!list.length && asked) {
      box.appendChild(el("p", { class: "where-none", text: "No section of the book comes close to this question." }));
      return;
    }
    if (!list.length) { box.hidden = true; return; }
    var ul = el("ul");
    list.forEach(function (r) {
      if (!r || typeof r.title !== "string") return;
      var a = sourceLink({ path: r.path, anchor: r.anchor }, r.title);
      var li = el("li", null, [a]);
      if (r.chapter && r.chapter !== r.title) li.appendChild(el("span", { class: "where-chapter", text: r.chapter }));
      ul.appendChild(li);
    });
    if (!ul.children.length) { box.hidden = true; return; }
    box.appendChild(el("p", { class: "sources-label", text: "Where the book discusses this" }));
    box.appendChild(ul);
    box.hidden = false;
  }

  function refusalAction(action, question) {
    if (action === "reask") {
      if (state.busy) return;
      open();
      ask(question, null, question);
      return;
    }
    open();
    input.value = question;
    input.focus();
    input.setSelectionRange(question.length, question.length);
  }

  function addNote(text, kind) {
    clearEmpty();
    var n = el("div", { class: "note " + (kind || ""), role: kind === "error" ? "alert" : null }, [renderRich(text)]);
    log.appendChild(n);
    scrollDown(true);
    return n;
  }

  function excerpt(text, n) {
    var cps = Array.from(text.replace(/\s+/g, " ").trim());
    return cps.length > n ? cps.slice(0, n).join("") + "\u2026" : cps.join("");
  }

  function say(text) {
    announce.textContent = "";
    setTimeout(function () { announce.textContent = excerpt(text, 600); }, 50);
  }

  // ---- opening and closing ---------------------------------------------------

  function open() {
    if (state.open) { input.focus(); return; }
    var back = load("sessionStorage", BACK_KEY);
    setBack(false);
    state.open = true;
    panel.hidden = false;
    launcher.setAttribute("aria-expanded", "true");
    launcher.classList.add("is-open");
    save("sessionStorage", OPEN_KEY, "1");
    state.returnTo = back != null && /^\d+$/.test(back) ? parseInt(back, 10) : null;
    loadHistory();
    input.focus({ preventScroll: true });
    if (state.returnTo != null) log.scrollTop = state.returnTo; else scrollDown(true);
  }

  // setBack turns the launcher into the way back to the conversation while
  // the reader looks at a source.
  function setBack(on) {
    launcher.classList.toggle("is-back", on);
    launcherText.textContent = on ? "Back to chat" : "Ask the tutor";
    launcherIcon.textContent = on ? "\u21A9" : "?";
    var label = on ? "Back to the conversation with the tutor (Alt+/)" : "Ask the textbook tutor (Alt+/)";
    launcher.setAttribute("aria-label", label);
    launcher.setAttribute("title", label);
    if (!on) save("sessionStorage", BACK_KEY, null);
  }

  function close(returnFocus) {
    if (!state.open) return;
    state.open = false;
    panel.hidden = true;
    launcher.setAttribute("aria-expanded", "false");
    launcher.classList.remove("is-open");
    save("sessionStorage", OPEN_KEY, null);
    if (returnFocus !== false) launcher.focus();
  }

  function toggle() { if (state.open) close(); else open(); }

  launcher.addEventListener("click", toggle);
  closeBtn.addEventListener("click", function () { close(); });
  newBtn.addEventListener("click", newConversation);

  root.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && state.open) {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  });

  document.addEventListener("keydown", function (e) {
    if (e.altKey && !e.ctrlKey && !e.metaKey && (e.code === "Slash" || e.key === "/")) {
      e.preventDefault();
      if (!state.open && state.selection) { attach(state.selection); hideAskSelection(); }
      toggle();
    }
  }, true);

  function newConversation() {
    if (state.controller) state.controller.abort();
    if (state.session) { save("localStorage", QUOTES_KEY + state.session, null); save("localStorage", FEEDBACK_KEY + state.session, null); }
    state.session = null;
    save("localStorage", SESSION_KEY, null);
    state.historyLoaded = true;
    showEmpty();
    say("Started a new conversation.");
    input.focus();
  }

  // ---- history ------------------------------------------------------------------

  // The server gives a session a page at a time (the latest first); older
  // pages come on demand, through a button above the oldest message shown.
  var HISTORY_PAGE = 100;

  function historyURL(id, before) {
    return apiBase + "/api/chat/sessions/" + encodeURIComponent(id) + "/messages?limit=" + HISTORY_PAGE +
      (before ? "&before=" + encodeURIComponent(before) : "");
  }

  function loadHistory() {
    if (state.historyLoaded || !state.session) return;
    state.historyLoaded = true;
    var id = state.session;
    var loading = addNote("Loading your conversation\u2026", "muted");
    fetch(historyURL(id), { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (res.status === 404) { if (state.session === id) { state.session = null; save("localStorage", SESSION_KEY, null); } return null; }
        if (!res.ok) throw new Error("HTTP " + res.status);
        return res.json();
      })
      .then(function (data) {
        loading.remove();
        if (state.session !== id || !data || !data.messages || !data.messages.length) {
          if (!log.children.length) showEmpty();
          return;
        }
        var before = log.firstChild;
        clearEmpty();
        var frag = historyFragment(id, data);
        log.insertBefore(frag, before && before.parentNode === log ? before : null);
        if (state.returnTo != null) log.scrollTop = state.returnTo; else scrollDown(true);
        state.returnTo = null;
      })
      .catch(function () {
        loading.remove();
        addNote("Your earlier conversation could not be loaded. New questions still work.", "error");
      });
  }

  // historyFragment renders a page of messages, preceded by the button
  // that loads the page before it when there is one. Quotes are matched
  // by a question's position in the session, known only when the page
  // starts the session.
  function historyFragment(id, data) {
    var frag = document.createDocumentFragment();
    var more = data.has_more && data.next_before;
    if (more) frag.appendChild(earlierButton(id, data.next_before));
    var quotes = more ? [] : loadQuotes(id), asked = -1, question = "";
    data.messages.forEach(function (m) {
      if (m.role === "user") {
        asked++;
        question = m.content || "";
        frag.appendChild(userMessage(question, quoteFor(quotes, asked, question)));
        return;
      }
      var a = addAssistant();
      if (m.was_refusal) showRefusal(a, m.content, m.refusal_reason, question);
      else { showAnswer(a, m.content, m.sources); addFeedback(a, m.id); }
      frag.appendChild(a.el);
    });
    return frag;
  }

  function earlierButton(id, cursor) {
    var b = el("button", { type: "button", class: "earlier", text: "Show earlier messages" });
    b.addEventListener("click", function () {
      b.disabled = true;
      b.textContent = "Loading earlier messages\u2026";
      fetch(historyURL(id, cursor), { headers: { Accept: "application/json" } })
        .then(function (res) {
          if (!res.ok) throw new Error("HTTP " + res.status);
          return res.json();
        })
        .then(function (data) {
          if (state.session !== id || !b.parentNode) return;
          // Keep the messages on screen where they are.
          var height = log.scrollHeight;
          var frag = historyFragment(id, data || { messages: [] });
          log.insertBefore(frag, b);
          b.remove();
          log.scrollTop += log.scrollHeight - height;
        })
        .catch(function () {
          b.disabled = false;
          b.textContent = "Earlier messages could not be loaded. Try again";
        });
    });
    return b;
  }

  // The server keeps a question but not the selection it was about, so the
  // widget keeps each question's quote in localStorage, per session, by the
  // question's position in the session and its text.
  function loadQuotes(session) {
    try { return JSON.parse(load("localStorage", QUOTES_KEY + session) || "[]") || []; } catch (e) { return []; }
  }

  function quoteFor(quotes, n, question) {
    for (var i = 0; i < quotes.length; i++) {
      if (quotes[i] && quotes[i].n === n && quotes[i].q === question) return String(quotes[i].t || "");
    }
    return "";
  }

  function rememberQuote(session, userMsg, question, quote) {
    var n = Array.prototype.indexOf.call(log.querySelectorAll(".msg.user"), userMsg);
    if (!session || n < 0) return;
    var quotes = loadQuotes(session).filter(function (x) { return x && x.n !== n; });
    quotes.push({ n: n, q: question, t: quote });
    save("localStorage", QUOTES_KEY + session, JSON.stringify(quotes.slice(-100)));
  }

  // ---- asking -----------------------------------------------------------------------

  form.addEventListener("submit", function (e) { e.preventDefault(); send(); });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });
  stopBtn.addEventListener("click", function () { if (state.controller) state.controller.abort(); });

  function setBusy(on) {
    state.busy = on;
    sendBtn.hidden = on;
    stopBtn.hidden = !on;
    panel.setAttribute("aria-busy", on ? "true" : "false");
    // Focus stays in the question box: moving it to Stop would let the
    // Enter that sent the question press Stop too.
    if (state.open && (root.activeElement === stopBtn || root.activeElement === sendBtn)) input.focus();
  }

  function send() {
    if (state.busy) return;
    var question = input.value.trim();
    if (!question) { input.focus(); return; }
    var typed = input.value;
    var attached = state.attached;
    input.value = "";
    detach();
    ask(question, attached, typed);
  }

  // ask sends a question (with attached, the selection it is about) and
  // shows the answer as it streams; typed is what goes back into the box
  // when asking fails.
  function ask(question, attached, typed) {
    var req = { question: question };
    if (attached) req.selected_text = attached.text;
    var key = JSON.stringify([question, attached ? attached.text : "", state.session || ""]);
    var retry = state.failed && state.failed.key === key;
    req.request_id = retry ? state.failed.id : requestID();
    // The first question names its session too: asked again after a
    // failure, it lands in the same one (the server keys a retry by session
    // and request id; a request id alone leads nowhere).
    req.session_id = state.session || (retry ? state.failed.session : newSessionID());
    state.failed = null;

    var userMsg = addUser(question, attached);
    var a = addAssistant();
    setPending(a, true);
    setBusy(true);
    var controller = new AbortController();
    state.controller = controller;
    var got = { sources: [], text: "", done: false, any: false };
    var frame = 0;

    function restore() {
      if (!input.value.trim()) input.value = typed;
      if (attached && !state.attached) attach(attached);
    }
    function drawDelta() {
      frame = 0;
      if (!got.done) showAnswer(a, got.text, got.sources);
    }

    fetch(apiBase + "/api/chat/stream", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(req),
      signal: controller.signal
    }).then(function (res) {
      if (!res.ok) return res.text().then(function (body) { throw httpError(res, body); });
      if (!res.body) throw new Error("no response body");
      return readSSE(res.body, function (event, data) {
        var d;
        try { d = JSON.parse(data); } catch (e) { d = null; }
        if (event === "sources") {
          got.any = true;
          got.sources = Array.isArray(d) ? d : [];
        } else if (event === "delta") {
          got.any = true;
          got.text += d && typeof d.text === "string" ? d.text : "";
          if (!frame) frame = requestAnimationFrame(drawDelta);
        } else if (event === "replace" && d) {
          // The tutor rejected text it had released: what follows "replace"
          // stands instead of everything shown so far.
          got.any = true;
          got.text = typeof d.text === "string" ? d.text : "";
          got.sources = Array.isArray(d.sources) ? d.sources : [];
          if (!frame) frame = requestAnimationFrame(drawDelta);
        } else if (event === "done" && d) {
          got.done = true;
          if (d.session_id) { state.session = d.session_id; state.historyLoaded = true; save("localStorage", SESSION_KEY, d.session_id); }
          if (attached) rememberQuote(state.session, userMsg, question, excerpt(attached.text, QUOTE_CHARS));
          if (d.was_refusal) {
            showRefusal(a, d.answer, d.refusal_reason, question, true);
            say(refusalInfo(d.refusal_reason).label + ". " + (d.answer || ""));
          } else {
            showAnswer(a, d.answer || got.text, d.sources && d.sources.length ? d.sources : got.sources);
            addFeedback(a, d.message_id);
            say("Answer: " + (d.answer || got.text));
          }
        } else if (event === "error") {
          var err = new Error((d && d.message) || "The answer failed part-way through.");
          err.userMessage = err.message;
          throw err;
        }
      });
    }).then(function () {
      if (!got.done) {
        var err = new Error("stream ended early");
        err.userMessage = "The answer was cut off before it finished. Please ask again.";
        throw err;
      }
    }).catch(function (err) {
      if (frame) cancelAnimationFrame(frame);
      if (controller.signal.aborted) {
        if (!got.text) { a.el.remove(); } else { showAnswer(a, got.text, got.sources); }
        addNote("Stopped.", "muted");
        return;
      }
      // Asked again, the question keeps its request id.
      state.failed = { key: key, id: req.request_id, session: req.session_id };
      return explainFailure(err).then(function (msg) {
        if (got.text) {
          showAnswer(a, got.text, got.sources);
          a.el.classList.add("interrupted");
        } else {
          a.el.remove();
          userMsg.remove();
        }
        addNote(msg, "error");
        say(msg);
        restore();
      });
    }).then(function () {
      if (state.controller === controller) state.controller = null;
      setBusy(false);
    });
  }

  function httpError(res, body) {
    var info = null;
    try { info = JSON.parse(body); } catch (e) { /* not JSON */ }
    var err = new Error("HTTP " + res.status);
    err.status = res.status;
    var serverMsg = info && typeof info.message === "string" ? info.message : "";
    if (res.status === 429) {
      var secs = retryAfter(res.headers.get("Retry-After"));
      if (secs == null && info && info.details) secs = retryAfter(String(info.details.retry_after_seconds || info.details.retry_after || ""));
      err.userMessage = secs != null
        ? "Too many questions \u2014 try again in " + secs + " second" + (secs === 1 ? "" : "s") + "."
        : "Too many questions \u2014 try again in a moment.";
    } else if (res.status >= 500) {
      err.userMessage = "The tutor is having trouble right now (error " + res.status + "). Please try again in a moment.";
    } else if (res.status === 400 || res.status === 409 || res.status === 413 || res.status === 422) {
      err.userMessage = serverMsg || "The tutor could not accept that question.";
    } else {
      err.userMessage = "The tutor could not answer (error " + res.status + ")." + (serverMsg ? " " + serverMsg : "");
    }
    return err;
  }

  function retryAfter(v) {
    if (!v) return null;
    if (/^\d+$/.test(v.trim())) return Math.max(1, parseInt(v, 10));
    var t = Date.parse(v);
    if (!isNaN(t)) return Math.max(1, Math.ceil((t - Date.now()) / 1000));
    return null;
  }

  function isNetworkError(err) {
    return !!err && !err.userMessage && (err.name === "TypeError" || /network|fetch/i.test(String(err.message)));
  }

  function errorMessage(err) {
    if (err && err.userMessage) return err.userMessage;
    if (isNetworkError(err)) {
      return "Could not reach the tutor. Check your connection and try again.";
    }
    return "Something went wrong while getting the answer. Please try again.";
  }

  // crossOrigin: the tutor is on another origin than this page, so its
  // CORS allow-list (the tutor's --cors-origins) decides whether the
  // browser lets this page read the answers.
  var crossOrigin = (function () {
    try { return new URL(apiBase || location.origin, location.href).origin !== location.origin; } catch (e) { return false; }
  })();

  // explainFailure resolves to the message for a failed request. To the
  // page, a tutor that does not allow this site fails as the network
  // does; a no-cors request, which needs no permission (and gets nothing
  // it could read), tells them apart: it reaches a running tutor whatever
  // its allow-list. Each message still names the other cause.
  function explainFailure(err) {
    if (!isNetworkError(err) || !crossOrigin) return Promise.resolve(errorMessage(err));
    var site = location.origin;
    var probe = fetch(apiBase + "/favicon.ico", { mode: "no-cors", cache: "no-store", credentials: "omit" })
      .then(function () { return true; }, function () { return false; });
    var timeout = new Promise(function (resolve) { setTimeout(function () { resolve(false); }, 4000); });
    return Promise.race([probe, timeout]).then(function (reached) {
      if (reached) {
        return "The tutor does not allow this site (" + site + "): its --cors-origins setting does not list it, so the browser blocks its answers. " +
          "If you run this site, add " + site + " to the tutor's --cors-origins. If not, tell the course team; your connection is not the problem.";
      }
      return "Could not reach the tutor. Check your connection and try again. " +
        "If your connection works, the tutor may be down, or may not allow this site (" + site + "): its --cors-origins setting must list it.";
    });
  }

  // readSSE reads a text/event-stream body, calling onEvent(event, data)
  // for each event; it resolves when the body ends.
  function readSSE(body, onEvent) {
    var reader = body.getReader();
    var decoder = new TextDecoder();
    var buf = "";
    function dispatch(block) {
      var event = "message", data = [];
      block.split("\n").forEach(function (line) {
        if (!line || line.charAt(0) === ":") return;
        var i = line.indexOf(":");
        var field = i < 0 ? line : line.slice(0, i);
        var value = i < 0 ? "" : line.slice(i + 1);
        if (value.charAt(0) === " ") value = value.slice(1);
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
      });
      if (data.length) onEvent(event, data.join("\n"));
    }
    function drain(final) {
      buf = buf.replace(/\r\n?/g, "\n");
      var i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        var block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        dispatch(block);
      }
      if (final && buf.trim()) { dispatch(buf); buf = ""; }
    }
    function pump() {
      return reader.read().then(function (r) {
        if (r.done) { buf += decoder.decode(); drain(true); return; }
        buf += decoder.decode(r.value, { stream: true });
        drain(false);
        return pump();
      });
    }
    return pump().catch(function (err) { try { reader.cancel(); } catch (e) { /* already closed */ } throw err; });
  }

  // ---- selected text --------------------------------------------------------------------

  function attach(sel) {
    var text = typeof sel === "string" ? sel : sel.text;
    var cps = Array.from(text);
    var truncated = cps.length > MAX_SELECTED;
    if (truncated) text = cps.slice(0, MAX_SELECTED).join("");
    state.attached = { text: text, truncated: truncated || !!sel.truncated };
    chipText.textContent = excerpt(text, 300);
    chipNote.hidden = !state.attached.truncated;
    chipNote.textContent = state.attached.truncated ? "Your selection was long: only its first 5,000 characters will be sent." : "";
    chip.hidden = false;
  }

  function detach() {
    state.attached = null;
    chip.hidden = true;
    chipText.textContent = "";
  }

  chipRemove.addEventListener("click", function () { detach(); input.focus(); });

  function pageSelection() {
    var s = document.getSelection ? document.getSelection() : null;
    if (!s || s.isCollapsed || !s.rangeCount) return null;
    var range = s.getRangeAt(0);
    var node = range.commonAncestorContainer;
    if (node === host || host.contains(node)) return null;
    var text = s.toString().trim();
    if (!text) return null;
    return { text: text, range: range };
  }

  var selTimer = 0;
  function checkSelection() {
    clearTimeout(selTimer);
    selTimer = setTimeout(placeAskSelection, 120);
  }

  function placeAskSelection() {
    var sel = pageSelection();
    if (!sel) { hideAskSelection(); return; }
    // Next to the end of the selection, or of its last line on screen.
    var rects = sel.range.getClientRects();
    var r = sel.range.getBoundingClientRect();
    for (var i = rects.length - 1; i >= 0; i--) {
      if (rects[i].width && rects[i].bottom > 0 && rects[i].top < window.innerHeight) { r = rects[i]; break; }
    }
    state.selection = sel.text;
    askSel.hidden = false;
    var w = askSel.offsetWidth || 140, h = askSel.offsetHeight || 34;
    var x = Math.min(Math.max(8, r.right - w / 2), window.innerWidth - w - 8);
    var y = r.bottom + 8;
    if (y + h > window.innerHeight - 8) y = r.top - h - 8;
    y = Math.min(Math.max(8, y), window.innerHeight - h - 8);
    askSel.style.left = Math.round(x) + "px";
    askSel.style.top = Math.round(y) + "px";
  }

  function hideAskSelection() {
    state.selection = null;
    askSel.hidden = true;
  }

  document.addEventListener("selectionchange", checkSelection);
  document.addEventListener("mouseup", checkSelection);
  window.addEventListener("scroll", function () { if (!askSel.hidden) placeAskSelection(); }, { passive: true });
  window.addEventListener("resize", function () { if (!askSel.hidden) placeAskSelection(); });
  askSel.addEventListener("mousedown", function (e) { e.preventDefault(); }); // keep the selection
  askSel.addEventListener("click", function () {
    var text = state.selection || (pageSelection() || {}).text;
    if (!text) { hideAskSelection(); return; }
    attach(text);
    hideAskSelection();
    open();
    input.focus();
  });

  // ---- start -------------------------------------------------------------------------------

  function mount() {
    document.body.appendChild(host);
    if (load("sessionStorage", BACK_KEY) != null) setBack(true);
    else if (load("sessionStorage", OPEN_KEY)) open();
  }
  if (document.body) mount(); else document.addEventListener("DOMContentLoaded", mount);

  window.TextbookRAG = {
    open: open,
    close: function () { close(false); },
    toggle: toggle,
    newConversation: newConversation,
    version: 1
  };
})();
