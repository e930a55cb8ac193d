/* Progressive enhancement for every page. Each part only improves what works without it:
 * - the header menu folds on narrow screens (it is sent open, so links show without scripts);
 * - the browser's time zone is reported once (Intl), for accounts that have not chosen one;
 * - forms and links marked data-inplace / inside [data-swap] update their region in place:
 *   "Mark read" marks its card, filters and page links replace the results, without a reload
 *   and without losing the scroll position; the plain form or link is the fallback.
 * - "Star" toggles in place; keyboard shortcuts move through clips and act on them (the help
 *   lists them: press "?"); the theme switch applies at once; the service worker keeps
 *   My clips readable offline, and logging out empties its cache.
 * The Content-Security-Policy allows no inline script, so everything lives in this file. */
(function () {
  "use strict";

  var NARROW = window.matchMedia("(max-width: 63.99rem)");

  function announce(text) {
    var box = document.getElementById("announcer");
    if (box) {
      box.textContent = "";
      window.setTimeout(function () { box.textContent = text; }, 50);
    }
  }

  function csrfToken(scope) {
    var input = (scope || document).querySelector("input[name=csrfmiddlewaretoken]") ||
      document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  /* --- The header menu ------------------------------------------------------------------- */
  function foldMenu() {
    var menu = document.querySelector(".nav-menu");
    if (!menu) return;
    menu.open = !NARROW.matches;
    var follow = function (event) { menu.open = !event.matches; };
    if (NARROW.addEventListener) NARROW.addEventListener("change", follow);
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && NARROW.matches && menu.open) {
        menu.open = false;
        menu.querySelector("summary").focus();
      }
    });
  }

  /* --- The browser's time zone ----------------------------------------------------------- */
  function reportTimeZone() {
    var url = document.body.dataset.timeZoneUrl;
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { zone = ""; }
    if (!url || !zone) return;
    var body = new URLSearchParams({ time_zone: zone, csrfmiddlewaretoken: csrfToken() });
    fetch(url, { method: "POST", body: body, credentials: "same-origin",
                 headers: { "X-CSRFToken": csrfToken() } }).catch(function () {});
  }

  /* --- In-place updates ------------------------------------------------------------------ */
  function fetchPage(url) {
    return fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) { return new DOMParser().parseFromString(html, "text/html"); });
  }

  /* Replace the region with the one of the same id in the page at url. */
  function swapRegion(region, url, push) {
    region.setAttribute("aria-busy", "true");
    return fetchPage(url).then(function (doc) {
      var fresh = doc.getElementById(region.id);
      if (!fresh) { window.location.assign(url); return; }
      region.replaceWith(fresh);
      enhance(fresh);
      if (push) window.history.pushState({ swap: fresh.id }, "", url);
      document.title = doc.title;
      var status = fresh.querySelector("[data-swap-status]");
      announce(status ? status.textContent.trim() : doc.title);
      return fresh;
    }).catch(function () { window.location.assign(url); });
  }

  function markRead(form) {
    var card = form.closest("[data-clip]");
    var button = form.querySelector("button");
    if (button) button.disabled = true;
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin",
                         redirect: "manual", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!(response.ok || response.type === "opaqueredirect")) throw new Error(String(response.status));
        if (card) {
          card.classList.remove("unread");
          card.querySelectorAll("[data-unread-badge]").forEach(function (el) { el.remove(); });
          var title = card.querySelector(".clip-title a, .clip-title");
          card.setAttribute("tabindex", "-1");
          form.remove();
          (title || card).focus({ preventScroll: true });
        }
        announce(form.dataset.doneText || "");
      })
      .catch(function () { form.submit(); });
  }

  function toggleStar(form) {
    var field = form.querySelector("input[name=starred]");
    var button = form.querySelector("button");
    var starring = field.value === "1";
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin",
                         headers: { "Accept": "application/json", "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        field.value = starring ? "0" : "1";
        button.setAttribute("aria-pressed", starring ? "true" : "false");
        var glyph = button.querySelector("[aria-hidden]");
        if (glyph) glyph.textContent = starring ? "\u2605" : "\u2606";
        announce(starring ? form.dataset.onText : form.dataset.offText);
      })
      .catch(function () { form.submit(); });
  }

  function enhance(root) {
    root.querySelectorAll("form[data-inplace=star]").forEach(function (form) {
      if (form.dataset.enhanced) return;
      form.dataset.enhanced = "1";
      form.addEventListener("submit", function (event) { event.preventDefault(); toggleStar(form); });
    });
    root.querySelectorAll("form[data-inplace=mark-read]").forEach(function (form) {
      if (form.dataset.enhanced) return;
      form.dataset.enhanced = "1";
      form.addEventListener("submit", function (event) { event.preventDefault(); markRead(form); });
    });
    root.querySelectorAll("form[data-swap-target]").forEach(function (form) {
      if (form.dataset.enhanced) return;
      form.dataset.enhanced = "1";
      form.addEventListener("submit", function (event) {
        var region = document.getElementById(form.dataset.swapTarget);
        if (!region || (form.method || "get").toLowerCase() !== "get") return;
        event.preventDefault();
        // The same address the plain form would load, empty fields included.
        var url = form.action.split("?")[0] + "?" + new URLSearchParams(new FormData(form));
        swapRegion(region, url, true);
      });
    });
    root.querySelectorAll("[data-swap] a[data-swap-link]").forEach(function (link) {
      if (link.dataset.enhanced) return;
      link.dataset.enhanced = "1";
      link.addEventListener("click", function (event) {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        var region = link.closest("[data-swap]");
        event.preventDefault();
        swapRegion(region, link.href, true).then(function (fresh) {
          if (fresh) {
            fresh.setAttribute("tabindex", "-1");
            fresh.focus({ preventScroll: true });
            var top = fresh.getBoundingClientRect().top;
            if (top < 0) fresh.scrollIntoView({ block: "start" });
          }
        });
      });
    });
  }

  window.addEventListener("popstate", function () {
    var region = document.querySelector("[data-swap]");
    if (region) swapRegion(region, window.location.href, false);
  });

  /* --- A searchable time-zone menu ------------------------------------------------------- */
  function filterableSelects() {
    document.querySelectorAll("select[data-filterable]").forEach(function (select) {
      var input = document.createElement("input");
      input.type = "search";
      input.className = "tz-filter";
      input.id = select.id + "-filter";
      input.setAttribute("aria-controls", select.id);
      input.placeholder = select.dataset.filterPlaceholder || "";
      var label = document.createElement("label");
      label.htmlFor = input.id;
      label.className = "visually-hidden";
      label.textContent = select.dataset.filterLabel || "";
      select.parentNode.insertBefore(label, select);
      select.parentNode.insertBefore(input, select);
      input.addEventListener("input", function () {
        var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
        var first = null;
        select.querySelectorAll("option").forEach(function (option) {
          var text = (option.value + " " + option.textContent).toLowerCase().replace(/_/g, " ");
          var shown = words.every(function (w) { return text.indexOf(w) >= 0; });
          option.hidden = !shown;
          if (shown && !first) first = option;
        });
        select.querySelectorAll("optgroup").forEach(function (group) {
          group.hidden = !group.querySelector("option:not([hidden])");
        });
        if (first && select.selectedOptions[0] && select.selectedOptions[0].hidden) first.selected = true;
      });
    });
  }

  /* --- Digest fields only for digest modes ----------------------------------------------- */
  function digestFields() {
    document.querySelectorAll("[data-shown-for]").forEach(function (group) {
      var control = document.getElementById(group.dataset.shownWith);
      if (!control) return;
      var modes = group.dataset.shownFor.split(" ");
      var follow = function () { group.hidden = modes.indexOf(control.value) < 0; };
      control.addEventListener("change", follow);
      follow();
    });
  }

  /* --- Keyboard shortcuts (Miniflux's): j/k move, o opens, v the original, m read, s star -- */
  function cards() { return Array.prototype.slice.call(document.querySelectorAll("[data-clip]")); }

  function current() {
    var active = document.activeElement;
    return active && active.closest ? active.closest("[data-clip]") : null;
  }

  function move(step) {
    var list = cards();
    if (!list.length) return;
    var at = list.indexOf(current());
    var next = list[Math.min(list.length - 1, Math.max(0, at < 0 ? 0 : at + step))];
    next.setAttribute("tabindex", "-1");
    next.classList.add("current");
    list.forEach(function (card) { if (card !== next) card.classList.remove("current"); });
    next.focus({ preventScroll: true });
    next.scrollIntoView({ block: "nearest" });
  }

  function act(key) {
    var card = current() || document.querySelector("[data-reader]");
    if (!card) return false;
    if (key === "o" || key === "Enter") {
      if (!card.dataset.readerUrl) return false;
      window.location.assign(card.dataset.readerUrl);
    } else if (key === "v") {
      if (!card.dataset.originalUrl) return false;
      window.open(card.dataset.originalUrl, "_blank", "noopener,noreferrer");
    } else if (key === "m") {
      var read = card.querySelector("form[data-inplace=mark-read]");
      if (!read) return false;
      markRead(read);
    } else if (key === "s") {
      var star = card.querySelector("form[data-inplace=star]");
      if (!star) return false;
      toggleStar(star);
    } else {
      return false;
    }
    return true;
  }

  function shortcuts() {
    var help = document.getElementById("shortcut-help");
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var target = event.target;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
        if (event.key === "Escape") target.blur();
        return;
      }
      var done = true;
      if (event.key === "j") move(1);
      else if (event.key === "k") move(-1);
      else if (event.key === "/") {
        var search = document.querySelector("input[type=search]");
        if (search) search.focus(); else done = false;
      } else if (event.key === "?" && help) {
        if (help.open) help.close(); else help.showModal();
      } else if (event.key === "Enter" && !current()) done = false;
      else done = act(event.key);
      if (done) event.preventDefault();
    });
  }

  /* --- Theme: light, dark or the system's, applied at once ----------------------------- */
  function themeSwitch() {
    var form = document.querySelector("form[data-theme-form]");
    if (!form) return;
    var select = form.querySelector("select");
    select.addEventListener("change", function () {
      var value = select.value;
      if (value === "light" || value === "dark") document.documentElement.setAttribute("data-theme", value);
      else document.documentElement.removeAttribute("data-theme");
      document.cookie = "webclip_theme=" + value + "; path=/; max-age=31536000; samesite=lax";
    });
  }

  /* --- Offline: the service worker, and an empty cache after logging out ---------------- */
  function serviceWorker() {
    var url = document.body.dataset.serviceWorker;
    if (!url || !("serviceWorker" in navigator)) return;
    navigator.serviceWorker.register(url).catch(function () {});
    document.querySelectorAll("[data-testid=logout]").forEach(function (button) {
      var form = button.form;
      if (!form || !window.caches) return;
      form.addEventListener("submit", function (event) {
        if (form.dataset.emptied) return;
        event.preventDefault();
        form.dataset.emptied = "1";
        var done = function () { form.submit(); };
        caches.keys().then(function (keys) {
          return Promise.all(keys.map(function (key) { return caches.delete(key); }));
        }).then(done, done);
      });
    });
  }

  foldMenu();
  reportTimeZone();
  enhance(document);
  shortcuts();
  themeSwitch();
  serviceWorker();
  filterableSelects();
  digestFields();
})();
