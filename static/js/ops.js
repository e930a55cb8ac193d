/* Operator dashboard: per-site crawl charts (Chart.js, served locally) and live crawl progress.
 * Chart data comes from a JSON <script> written by json_script; the Content-Security-Policy
 * allows no inline script or style, so everything runs from this file. */
(function () {
  "use strict";

  /* Counts per run are discrete: each series is drawn as straight lines between runs with a
   * point at every run, never as a smoothed curve that would overshoot between counts. The words
   * come from the page (#ops-chart-labels), translated with it. */
  var WORDS = (document.getElementById("ops-chart-labels") || { dataset: {} }).dataset;
  var SERIES = [
    { key: "fetched", label: WORDS.fetched || "Fetched", color: "#1f77b4", point: "circle" },
    { key: "new", label: WORDS.new || "New", color: "#2ca02c", point: "rect" },
    { key: "changed", label: WORDS.changed || "Changed", color: "#b35900", point: "triangle" },
    { key: "clips", label: WORDS.clips || "Clips", color: "#9467bd", point: "rectRot" },
    { key: "errors", label: WORDS.errors || "Errors", color: "#d62728", point: "crossRot" },
  ];
  var LANGUAGE = document.documentElement.lang || undefined;
  /* The person's own zone (as the server wrote every other time on the page) and the
   * 24-hour clock of the page's date formats, whatever the browser's zone and locale. */
  var CLOCK = { timeZone: document.documentElement.dataset.timeZone || undefined, hourCycle: "h23" };

  function clockOptions(extra) {
    var options = Object.assign({}, extra, CLOCK);
    try {
      new Intl.DateTimeFormat(LANGUAGE, options);
    } catch (e) {
      delete options.timeZone;  /* a zone this browser does not know */
    }
    return options;
  }

  function shortDate(iso) {
    var d = new Date(iso);
    return d.toLocaleString(LANGUAGE, clockOptions({ month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" }));
  }

  var TEXT = (document.getElementById("ops-progress") || { dataset: {} }).dataset;

  function percent(rate) {
    return rate === null || rate === undefined ? "–" : Math.round(rate * 100) + "%";
  }

  function drawChart(canvas, runs) {
    var datasets = SERIES.map(function (s) {
      return {
        label: s.label,
        data: runs.map(function (r) { return r[s.key]; }),
        borderColor: s.color,
        backgroundColor: s.color,
        yAxisID: "y",
        spanGaps: false,  /* a run that fetched nothing is a gap, not a drop to zero */
        tension: 0,
        pointStyle: s.point,
        pointRadius: 3.5,
        pointHoverRadius: 5,
      };
    });
    datasets.push({
      label: WORDS.harvest || "Harvest rate (%)",
      data: runs.map(function (r) { return r.harvest_rate === null ? null : r.harvest_rate * 100; }),
      borderColor: "#666666",
      backgroundColor: "#666666",
      borderDash: [6, 4],
      yAxisID: "y1",
      tension: 0,
      pointStyle: "circle",
      pointRadius: 3,
    });
    return new window.Chart(canvas, {
      type: "line",
      data: { labels: runs.map(function (r) { return shortDate(r.started_at); }), datasets: datasets },
      options: {
        // The canvas fills its .chart-box, whose height the stylesheet sets per screen width:
        // a fixed aspect ratio made the chart a flat line on a phone.
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        locale: LANGUAGE,
        interaction: { mode: "index", intersect: false },
        plugins: { legend: { labels: { usePointStyle: true, boxWidth: 8 } } },
        scales: {
          x: { ticks: { maxRotation: 0, autoSkip: true, autoSkipPadding: 12 } },
          y: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: WORDS.pages || "pages / clips" } },
          y1: {
            position: "right",
            min: 0,
            max: 100,
            grid: { drawOnChartArea: false },
            title: { display: true, text: WORDS.harvestAxis || "harvest %" },
          },
        },
      },
    });
  }

  function drawCharts() {
    var source = document.getElementById("ops-chart-data");
    if (!source || !window.Chart) {
      return;
    }
    JSON.parse(source.textContent).forEach(function (site) {
      var canvas = document.querySelector('canvas.ops-chart[data-site="' + site.site + '"]');
      if (canvas && site.runs.length) {
        drawChart(canvas, site.runs);
      }
    });
  }

  function cell(text, field) {
    var td = document.createElement("td");
    td.textContent = text;
    if (field) {
      td.dataset.field = field;
    }
    return td;
  }

  function runRow(run) {
    var tr = document.createElement("tr");
    tr.dataset.run = run.id;
    var site = cell(run.site_name);
    if (run.stale) {
      tr.className = "stale";
      var note = document.createElement("small");
      note.textContent = " " + (TEXT.stale || "(no heartbeat)");
      site.appendChild(note);
    }
    tr.appendChild(site);
    var started = cell("");
    var time = document.createElement("time");
    time.dateTime = run.started_at;
    time.textContent = shortDate(run.started_at);
    started.appendChild(time);
    tr.appendChild(started);
    var bar = document.createElement("progress");
    bar.max = Math.max(run.page_budget, 1);
    bar.value = Math.min(run.fetched, bar.max);
    var progress = cell("");
    progress.appendChild(bar);
    tr.appendChild(progress);
    tr.appendChild(cell(run.fetched + " / " + run.page_budget, "fetched"));
    ["new", "changed", "errors", "robots_skipped"].forEach(function (key) {
      tr.appendChild(cell(String(run[key]), key));
    });
    tr.appendChild(cell(percent(run.harvest_rate), "harvest_rate"));
    return tr;
  }

  function showProgress(data) {
    var body = document.getElementById("ops-running");
    var rows = data.runs.map(runRow);
    if (!rows.length) {
      var empty = document.createElement("tr");
      empty.className = "empty";
      var td = cell(TEXT.empty || "No crawl is running.");
      td.colSpan = 9;
      td.className = "empty-state";
      empty.appendChild(td);
      rows = [empty];
    }
    body.replaceChildren.apply(body, rows);
    Object.keys(data.mail).forEach(function (key) {
      document.querySelectorAll('[data-mail="' + key + '"]').forEach(function (el) {
        el.textContent = String(data.mail[key]);
      });
    });
  }

  function startPolling() {
    var section = document.getElementById("ops-progress");
    if (!section) {
      return;
    }
    var status = document.getElementById("ops-progress-status");
    var delay = 1000 * Number(section.dataset.pollSeconds || 5);
    function poll() {
      if (document.hidden) {
        window.setTimeout(poll, delay);
        return;
      }
      fetch(section.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) {
          if (!response.ok) {
            throw new Error("HTTP " + response.status);
          }
          return response.json();
        })
        .then(function (data) {
          showProgress(data);
          status.textContent = (TEXT.updated || "Updated") + " " +
            new Date(data.generated_at).toLocaleTimeString(LANGUAGE, clockOptions({})) + ".";
        })
        .catch(function () {
          status.textContent = TEXT.failed || "Could not refresh; retrying.";
        })
        .finally(function () {
          window.setTimeout(poll, delay);
        });
    }
    window.setTimeout(poll, delay);
  }

  drawCharts();
  startPolling();
})();
