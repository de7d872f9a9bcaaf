/*
 * The reader's page: on a narrow screen the chapters wait behind a menu
 * button, so the text comes first. Loaded in <head>, before the page is
 * drawn, so that the chapters never flash above the text; without
 * JavaScript they stay where they are, above it.
 */
(function () {
  "use strict";
  var doc = document.documentElement;
  doc.classList.add("has-menu");

  function start() {
    var button = document.querySelector(".menu");
    var nav = document.getElementById("sidebar");
    if (!button || !nav) { doc.classList.remove("has-menu"); return; }
    var scrim = document.createElement("div");
    scrim.className = "scrim";
    scrim.hidden = true;
    document.body.appendChild(scrim);
    button.hidden = false;

    function isOpen() { return button.getAttribute("aria-expanded") === "true"; }

    function open() {
      button.setAttribute("aria-expanded", "true");
      nav.classList.add("open");
      scrim.hidden = false;
      // The current chapter: its module is open (the server marks it),
      // and it is in view and focused, where the reader left off.
      var current = nav.querySelector('a[aria-current="page"]') || nav.querySelector("a");
      if (current) {
        current.scrollIntoView({ block: "center" });
        current.focus({ preventScroll: true });
      }
    }

    function close(returnFocus) {
      if (!isOpen()) return;
      button.setAttribute("aria-expanded", "false");
      nav.classList.remove("open");
      scrim.hidden = true;
      if (returnFocus) button.focus();
    }

    button.addEventListener("click", function () { if (isOpen()) close(true); else open(); });
    scrim.addEventListener("click", function () { close(true); });
    nav.addEventListener("click", function (e) {
      if (e.target.closest && e.target.closest("a")) close(false);
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && isOpen()) { e.preventDefault(); close(true); }
    });
    // Back from a page (bfcache) the menu starts closed.
    window.addEventListener("pageshow", function () { close(false); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
