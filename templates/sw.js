/* Webclip's service worker: My clips and the dashboard stay readable offline.
 * Pages are fetched from the network first and kept when they arrive; offline, the last copy
 * is shown. Static files are served from the cache and refreshed behind it. Only GET requests
 * of this site are touched; logging out empties the cache (app.js). */
"use strict";
var CACHE = "{{ cache_version }}";
var STATIC = [{% for file in static_files %}"{{ file|escapejs }}"{% if not forloop.last %}, {% endif %}{% endfor %}];
var OFFLINE_PATHS = [{% for page in offline_pages %}"{{ page|escapejs }}"{% if not forloop.last %}, {% endif %}{% endfor %}];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(STATIC); }));
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (key) { return key !== CACHE; })
      .map(function (key) { return caches.delete(key); }));
  }).then(function () { return self.clients.claim(); }));
});

function keptPage(url) {
  return OFFLINE_PATHS.indexOf(url.pathname) >= 0;
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (STATIC.indexOf(url.pathname) >= 0) {
    event.respondWith(caches.open(CACHE).then(function (cache) {
      return cache.match(request).then(function (hit) {
        var fresh = fetch(request).then(function (response) {
          if (response.ok) cache.put(request, response.clone());
          return response;
        });
        return hit || fresh;
      });
    }));
    return;
  }
  if (request.mode === "navigate" && keptPage(url)) {
    event.respondWith(fetch(request).then(function (response) {
      if (response.ok && !response.redirected) {
        var copy = response.clone();
        caches.open(CACHE).then(function (cache) { cache.put(url.pathname, copy); });
      }
      return response;
    }).catch(function () {
      return caches.match(url.pathname).then(function (hit) {
        return hit || Response.error();
      });
    }));
  }
});
