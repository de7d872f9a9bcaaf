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
  var SESSION_KEY = "textbook-rag:session";
  var OPEN_KEY = "textbook-rag:open";
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

  // appendInline adds text with `code` and **bold** to parent.
  function appendInline(parent, text) {
    var re = /`([^`]+)`|\*\*([^*]+?)\*\*/g;
    var last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      if (m[1] !== undefined) parent.appendChild(el("code", { text: m[1] }));
      else parent.appendChild(el("strong", { text: m[2] }));
      last = re.lastIndex;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  // renderRich turns Markdown-ish answer text into DOM nodes: ``` fences,
  // "- " and "1. " lists, paragraphs and line breaks, inline code and bold.
  function renderRich(text) {
    var frag = document.createDocumentFragment();
    var lines = String(text || "").replace(/\r\n?/g, "\n").split("\n");
    var para = null, list = null;
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i];
      var fence = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/.exec(line);
      if (fence) {
        var code = [];
        for (i++; i < lines.length && lines[i].trim() !== fence[1]; i++) code.push(lines[i]);
        var c = el("code", { text: code.join("\n") });
        if (fence[2]) c.setAttribute("data-lang", fence[2]);
        frag.appendChild(el("pre", null, [c]));
        para = list = null;
        continue;
      }
      var ul = /^\s*[-*•]\s+(.*)$/.exec(line);
      var ol = /^\s*(\d+)[.)]\s+(.*)$/.exec(line);
      if (ul || ol) {
        var kind = ul ? "ul" : "ol";
        if (!list || list.tagName.toLowerCase() !== kind) {
          list = el(kind);
          if (ol && ol[1] !== "1") list.setAttribute("start", ol[1]);
          frag.appendChild(list);
        }
        var li = el("li");
        appendInline(li, ul ? ul[1] : ol[2]);
        list.appendChild(li);
        para = null;
        continue;
      }
      if (!line.trim()) { para = list = null; continue; }
      list = null;
      var h = /^#{1,6}\s+(.*)$/.exec(line);
      if (h) {
        para = null;
        var p = el("p", { class: "h" });
        appendInline(p, h[1]);
        frag.appendChild(p);
        continue;
      }
      if (!para) { para = el("p"); frag.appendChild(para); } else { para.appendChild(el("br")); }
      appendInline(para, line);
    }
    return frag;
  }

  function sourceHref(s) {
    var parts = [];
    if (s.module_id) parts.push(encodeURIComponent(s.module_id));
    parts.push(encodeURIComponent(s.chapter_id || ""));
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
    var external = false;
    try { external = new URL(bookURL, location.href).origin !== location.origin; } catch (e) { /* relative */ }
    var ul = el("ul");
    list.forEach(function (s) {
      var a = el("a", { href: sourceHref(s), class: "source", text: s.section_heading || s.chapter_id });
      if (external) { a.target = "_blank"; a.rel = "noopener"; }
      ul.appendChild(el("li", null, [a]));
    });
    box.appendChild(el("p", { class: "sources-label", text: "Sources" }));
    box.appendChild(ul);
  }

  // ---- the widget ------------------------------------------------------------

  var host = el("div", { id: "textbook-rag-widget" });
  host.style.cssText = "all: initial;";
  var root = host.attachShadow({ mode: "open" });
  root.appendChild(el("style", { text: CSS }));

  var launcher = el("button", {
    type: "button", class: "launcher", "aria-label": "Ask the textbook tutor (Alt+/)",
    title: "Ask the textbook tutor (Alt+/)", "aria-expanded": "false", "aria-controls": "trag-panel"
  }, [el("span", { class: "launcher-icon", "aria-hidden": "true", text: "?" }), el("span", { class: "launcher-text", text: "Ask the tutor" })]);

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
      el("div", { class: "title" }, [el("h2", { text: "Textbook tutor" }), el("p", { text: "Answers only from the textbook, with sources." })]),
      newBtn, closeBtn
    ]),
    log, announce, form
  ]);
  root.appendChild(el("div", { class: "wrap" }, [askSel, panel, launcher]));

  var state = {
    open: false,
    session: load("localStorage", SESSION_KEY),
    historyLoaded: false,
    busy: false,
    controller: null,
    attached: null, // {text, truncated}
    selection: null // text of the page selection the "Ask about this" button offers
  };

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
    var m = el("div", { class: "msg user" });
    if (attached) m.appendChild(el("blockquote", { class: "quote", text: excerpt(attached.text, 280) }));
    m.appendChild(el("p", { class: "text", text: text }));
    log.appendChild(m);
    scrollDown(true);
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

  function setPending(a, on) {
    a.el.classList.toggle("pending", on);
    if (on) a.body.replaceChildren(el("span", { class: "typing", "aria-label": "The tutor is answering" }, [el("i"), el("i"), el("i")]));
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
      renderSources(a.sources, sources);
    });
  }

  function showRefusal(a, text, reason) {
    keepBottom(function () { refusal(a, text, reason); });
  }

  function refusal(a, text, reason) {
    a.el.classList.remove("pending");
    a.el.classList.add("refusal");
    if (reason) a.el.setAttribute("data-reason", reason);
    a.body.replaceChildren(
      el("p", { class: "refusal-label" }, [el("span", { class: "icon", "aria-hidden": "true", text: "\u2298" }), "Not in the textbook"]),
      renderRich(text)
    );
    a.sources.hidden = true;
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
    state.open = true;
    panel.hidden = false;
    launcher.setAttribute("aria-expanded", "true");
    launcher.classList.add("is-open");
    save("sessionStorage", OPEN_KEY, "1");
    loadHistory();
    input.focus();
    scrollDown(true);
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
    state.session = null;
    save("localStorage", SESSION_KEY, null);
    state.historyLoaded = true;
    showEmpty();
    say("Started a new conversation.");
    input.focus();
  }

  // ---- history ------------------------------------------------------------------

  function loadHistory() {
    if (state.historyLoaded || !state.session) return;
    state.historyLoaded = true;
    var id = state.session;
    var loading = addNote("Loading your conversation\u2026", "muted");
    fetch(apiBase + "/api/chat/sessions/" + encodeURIComponent(id) + "/messages", { headers: { Accept: "application/json" } })
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
        var frag = document.createDocumentFragment();
        var before = log.firstChild;
        clearEmpty();
        data.messages.forEach(function (m) {
          if (m.role === "user") {
            frag.appendChild(el("div", { class: "msg user" }, [el("p", { class: "text", text: m.content || "" })]));
            return;
          }
          var a = addAssistant();
          if (m.was_refusal) showRefusal(a, m.content, m.refusal_reason);
          else showAnswer(a, m.content, m.sources);
          frag.appendChild(a.el);
        });
        log.insertBefore(frag, before && before.parentNode === log ? before : null);
        scrollDown(true);
      })
      .catch(function () {
        loading.remove();
        addNote("Your earlier conversation could not be loaded. New questions still work.", "error");
      });
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
    var req = { question: question };
    if (attached) req.selected_text = attached.text;
    if (state.session) req.session_id = state.session;

    input.value = "";
    detach();
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
          if (d.was_refusal) {
            showRefusal(a, d.answer, d.refusal_reason);
            say("Not in the textbook. " + (d.answer || ""));
          } else {
            showAnswer(a, d.answer || got.text, d.sources && d.sources.length ? d.sources : got.sources);
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
      var msg = errorMessage(err);
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
    } else if (res.status === 400 || res.status === 413 || res.status === 422) {
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

  function errorMessage(err) {
    if (err && err.userMessage) return err.userMessage;
    if (err && (err.name === "TypeError" || /network|fetch/i.test(String(err.message)))) {
      return "Could not reach the tutor. Check your connection and try again.";
    }
    return "Something went wrong while getting the answer. Please try again.";
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
    if (load("sessionStorage", OPEN_KEY)) open();
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
