/* Progressive enhancement for every page. Each part only improves what works without it:
 * - the header menu folds on narrow screens (it is sent open, so links show without scripts);
 * - the browser's time zone is reported once (Intl), for accounts that have not chosen one;
 * - forms and links marked data-inplace / inside [data-swap] update their region in place:
 *   "Mark read" marks its card, filters and page links replace the results, without a reload
 *   and without losing the scroll position; the plain form or link is the fallback.
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

  function enhance(root) {
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

  foldMenu();
  reportTimeZone();
  enhance(document);
  filterableSelects();
  digestFields();
})();
