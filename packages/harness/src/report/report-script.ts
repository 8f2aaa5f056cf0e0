/**
 * The report page's only script (inline; no libraries): zooms and pans the
 * timeline. Shapes along time sit in one group scaled by the zoom; the
 * script re-places text and glyphs from their data-t / data-a / data-b
 * times, hides labels that no longer fit, keeps bars shorter than a few
 * pixels at a minimum width, and draws the time axis and grid for the
 * visible span. It filters rows by member and topic (hiding rows and moving
 * the ones below up), opens a violation's explanation panel, picks out a
 * member's partitions when its legend key or row is hovered, and keeps the
 * view (time window, zoom, filters, open violation) in the address bar's
 * fragment, so a link opens the same view.
 * Plain ES2017 in a string: it runs in the browser, not in Node.
 */
export const REPORT_SCRIPT = String.raw`
(function () {
  "use strict";
  var plot = document.getElementById("tl-plot");
  if (!plot) return;
  var NS = "http://www.w3.org/2000/svg";
  var axis = document.getElementById("tl-axis");
  var scroller = document.getElementById("tl-scroll");
  var ticks = document.getElementById("tl-ticks");
  var grid = document.getElementById("tl-grid");
  var cursor = document.getElementById("tl-cursor");
  var brush = document.getElementById("tl-brush");
  var zoomReadout = document.getElementById("tl-zoom");
  var timeReadout = document.getElementById("tl-time");
  var scaled = plot.querySelector(".ts");
  var labelColumn = scroller.querySelector(".tl-labels");
  var durationMs = Number(plot.getAttribute("data-duration-ms"));
  var points = Array.prototype.slice.call(document.querySelectorAll("#tl-plot .pt, #tl-axis .pt"));
  var texts = Array.prototype.slice.call(plot.querySelectorAll("text[data-a]"));
  var shorts = Array.prototype.slice.call(plot.querySelectorAll("rect.short"));
  var MIN_DRAWN_PX = 3;
  var labelSvg = scroller.querySelector("svg.tl-labels");
  var fullHeight = Number(plot.getAttribute("height"));
  var k = Number(plot.getAttribute("data-px-per-ms"));
  var MAX_PX_PER_MS = 40;
  var fitted = true;

  function labelWidth() { return labelColumn.getBoundingClientRect().width; }
  function viewWidth() { return Math.max(200, scroller.clientWidth - labelWidth() - 2); }
  function fitK() { return viewWidth() / durationMs; }
  function clampK(value) { return Math.min(Math.max(fitK(), MAX_PX_PER_MS), Math.max(fitK(), value)); }
  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= raw) return steps[i] * p;
    return 10 * p;
  }
  function formatTime(ms, step) {
    var digits = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
    return (ms / 1000).toFixed(digits) + " s";
  }

  function drawAxis() {
    var step = niceStep(95 / k);
    var from = Math.max(0, Math.floor(scroller.scrollLeft / k / step) * step);
    var to = Math.min(durationMs, (scroller.scrollLeft + viewWidth()) / k);
    var height = plot.getAttribute("height");
    while (ticks.firstChild) ticks.removeChild(ticks.firstChild);
    while (grid.firstChild) grid.removeChild(grid.firstChild);
    for (var t = from; t <= to + step / 2; t += step) {
      var x = (t * k).toFixed(1);
      var g = document.createElementNS(NS, "g");
      g.setAttribute("class", "tick");
      g.setAttribute("transform", "translate(" + x + " 0)");
      var line = document.createElementNS(NS, "line");
      line.setAttribute("y1", "27");
      line.setAttribute("y2", "34");
      var text = document.createElementNS(NS, "text");
      text.setAttribute("y", "12");
      text.textContent = formatTime(t, step);
      // The first and last labels stay inside the axis instead of being cut in half.
      if (t * k < 24) text.setAttribute("style", "text-anchor:start");
      else if (t * k > durationMs * k - 24) text.setAttribute("style", "text-anchor:end");
      g.appendChild(line);
      g.appendChild(text);
      ticks.appendChild(g);
      var gridLine = document.createElementNS(NS, "line");
      gridLine.setAttribute("x1", x);
      gridLine.setAttribute("x2", x);
      gridLine.setAttribute("y1", "0");
      gridLine.setAttribute("y2", height);
      grid.appendChild(gridLine);
    }
  }

  function layout() {
    var width = Math.ceil(durationMs * k);
    plot.setAttribute("width", String(width));
    axis.setAttribute("width", String(width));
    scaled.setAttribute("transform", "scale(" + k + " 1)");
    for (var i = 0; i < points.length; i++) {
      var p = points[i];
      p.setAttribute("transform", "translate(" + (Number(p.getAttribute("data-t")) * k).toFixed(1) + " " + p.getAttribute("data-y") + ")");
    }
    for (var m = 0; m < shorts.length; m++) {
      var r = shorts[m];
      r.setAttribute("width", String(Math.max(Number(r.getAttribute("data-w")), MIN_DRAWN_PX / k)));
    }
    for (var j = 0; j < texts.length; j++) {
      var l = texts[j];
      var a = Number(l.getAttribute("data-a"));
      var fits = (Number(l.getAttribute("data-b")) - a) * k >= Number(l.getAttribute("data-w")) + 6;
      if (fits) {
        l.setAttribute("x", (a * k + 3).toFixed(1));
        l.removeAttribute("display");
      } else l.setAttribute("display", "none");
    }
    var factor = k / fitK();
    zoomReadout.textContent = (factor < 10 ? factor.toFixed(1) : Math.round(factor)) + "\u00d7";
    drawAxis();
  }

  /** Zooms to px-per-ms "next", keeping the time under view x "anchor" in place. */
  function zoomTo(next, anchor) {
    var t = (scroller.scrollLeft + anchor) / k;
    k = clampK(next);
    fitted = Math.abs(k - fitK()) < 1e-12;
    layout();
    scroller.scrollLeft = t * k - anchor;
    drawAxis();
    saveState();
  }

  function showSpan(fromMs, toMs) {
    k = clampK(viewWidth() / Math.max(toMs - fromMs, 1e-3));
    fitted = false;
    layout();
    scroller.scrollLeft = fromMs * k;
    drawAxis();
    saveState();
  }

  document.querySelectorAll("[data-zoom]").forEach(function (button) {
    button.addEventListener("click", function () {
      var what = button.getAttribute("data-zoom");
      if (what === "fit") zoomTo(fitK(), 0);
      else zoomTo(what === "in" ? k * 2 : k / 2, viewWidth() / 2);
    });
  });

  scroller.addEventListener("wheel", function (event) {
    if (!event.ctrlKey && !event.metaKey) return;
    event.preventDefault();
    var x = event.clientX - scroller.getBoundingClientRect().left - labelWidth();
    zoomTo(k * Math.exp(-event.deltaY * 0.002), Math.max(0, x));
  }, { passive: false });

  var pending = false;
  scroller.addEventListener("scroll", function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; drawAxis(); saveState(); });
  });

  plot.addEventListener("mousemove", function (event) {
    var x = event.clientX - plot.getBoundingClientRect().left;
    cursor.setAttribute("x1", x.toFixed(1));
    cursor.setAttribute("x2", x.toFixed(1));
    cursor.style.display = "inline";
    timeReadout.textContent = "t = " + (x / k / 1000).toFixed(3) + " s";
  });
  plot.addEventListener("mouseleave", function () {
    cursor.style.display = "none";
    timeReadout.textContent = "";
  });


  var dragFrom = null;
  function axisX(event) { return event.clientX - axis.getBoundingClientRect().left; }
  axis.addEventListener("mousedown", function (event) {
    if (event.target.closest && event.target.closest(".flag")) return;
    dragFrom = axisX(event);
    brush.setAttribute("x", String(dragFrom));
    brush.setAttribute("width", "0");
    event.preventDefault();
  });
  window.addEventListener("mousemove", function (event) {
    if (dragFrom === null) return;
    var x = axisX(event);
    brush.setAttribute("x", String(Math.min(x, dragFrom)));
    brush.setAttribute("width", String(Math.abs(x - dragFrom)));
  });
  window.addEventListener("mouseup", function (event) {
    if (dragFrom === null) return;
    var x = axisX(event);
    var a = Math.min(x, dragFrom), b = Math.max(x, dragFrom);
    dragFrom = null;
    brush.setAttribute("width", "0");
    if (b - a > 4) showSpan(a / k, b / k);
  });

  document.querySelectorAll("[data-goto]").forEach(function (button) {
    button.addEventListener("click", function () {
      var t = Number(button.getAttribute("data-goto"));
      var span = Math.min(durationMs, Math.max(1000, durationMs / 40));
      var from = Math.max(0, Math.min(durationMs - span, t - span / 2));
      document.getElementById("timeline").scrollIntoView();
      showSpan(from, from + span);
    });
  });

  // A member's legend key or its row picks out its partitions (its colour class, e.g. "m3").
  function pick(colour) {
    if (!/^m\d+$/.test(colour || "")) return;
    plot.classList.add("pick");
    plot.querySelectorAll(".own." + colour).forEach(function (r) { r.classList.add("on"); });
  }
  function unpick() {
    plot.classList.remove("pick");
    plot.querySelectorAll(".own.on").forEach(function (r) { r.classList.remove("on"); });
  }
  document.querySelectorAll(".key[data-colour], #tl-plot g.mrow[data-colour]").forEach(function (el) {
    el.addEventListener("mouseenter", function () { pick(el.getAttribute("data-colour")); });
    el.addEventListener("mouseleave", unpick);
  });

  // Filters: hide rows, move the rows below up (in the label column, the bars and the marks alike).
  var memberFilter = document.getElementById("f-member");
  var topicFilter = document.getElementById("f-topic");
  var rowLayers = [labelSvg, plot.querySelector(".ts"), plot.querySelector(".marks")];
  function rowsOf(layer) { return layer ? Array.prototype.slice.call(layer.querySelectorAll("g.row")) : []; }
  var layers = rowLayers.map(rowsOf);
  function shown(row) {
    var member = memberFilter ? memberFilter.value : "";
    var topic = topicFilter ? topicFilter.value : "";
    if (row.classList.contains("mrow")) return !member || row.getAttribute("data-member") === member;
    if (row.classList.contains("trow")) return !topic || row.getAttribute("data-topic") === topic;
    if (row.classList.contains("prow")) {
      if (topic && row.getAttribute("data-topic") !== topic) return false;
      return !member || (" " + row.getAttribute("data-owners") + " ").indexOf(" " + member + " ") >= 0;
    }
    return true;
  }
  function applyFilters() {
    var rows = layers[1];
    var hidden = 0;
    for (var i = 0; i < rows.length; i++) {
      var visible = shown(rows[i]);
      for (var l = 0; l < layers.length; l++) {
        var el = layers[l][i];
        if (!el) continue;
        if (visible) {
          el.removeAttribute("display");
          el.setAttribute("transform", "translate(0 " + (-hidden) + ")");
        } else el.setAttribute("display", "none");
      }
      if (!visible) hidden += Number(rows[i].getAttribute("data-h"));
    }
    var height = String(Math.max(20, fullHeight - hidden));
    plot.setAttribute("height", height);
    if (labelSvg) labelSvg.setAttribute("height", height);
    grid.querySelectorAll("line").forEach(function (line) { line.setAttribute("y2", height); });
    saveState();
  }
  if (memberFilter) memberFilter.addEventListener("change", applyFilters);
  if (topicFilter) topicFilter.addEventListener("change", applyFilters);

  // The explanation panel: one section per violation, opened from its flag, its ringed events and the checks.
  var panel = document.getElementById("xpanel");
  var openViolation = "";
  function explain(number) {
    if (!panel) return;
    var found = false;
    panel.querySelectorAll("section.explain").forEach(function (section) {
      var match = section.getAttribute("data-v") === String(number);
      section.hidden = !match;
      found = found || match;
    });
    panel.hidden = !found;
    openViolation = found ? String(number) : "";
    saveState();
  }
  document.addEventListener("click", function (event) {
    var target = event.target && event.target.closest ? event.target : null;
    if (!target) return;
    var trigger = target.closest("[data-explain]");
    if (trigger) {
      event.preventDefault();
      explain(trigger.getAttribute("data-explain"));
      return;
    }
    var span = target.closest("[data-span]");
    if (span) {
      var bounds = span.getAttribute("data-span").split(",");
      document.getElementById("timeline").scrollIntoView();
      showSpan(Number(bounds[0]), Number(bounds[1]));
      return;
    }
    var mark = target.closest(".xsvg [data-row]");
    if (mark && panel) {
      var section = mark.closest("section.explain");
      section.querySelectorAll("tr.xhl").forEach(function (tr) { tr.classList.remove("xhl"); });
      var row = section.querySelector('tr[data-row="' + mark.getAttribute("data-row") + '"]');
      if (row) { row.classList.add("xhl"); row.scrollIntoView({ block: "nearest" }); }
    }
  });
  var closer = document.getElementById("xclose");
  if (closer) closer.addEventListener("click", function () { explain(""); });
  document.addEventListener("keydown", function (event) { if (event.key === "Escape" && panel && !panel.hidden) explain(""); });

  // The view in the address bar: #from=S&to=S&zoom=X&member=M&topic=T&v=N (times in seconds of virtual time).
  var restoring = true;
  function saveState() {
    if (restoring) return;
    var fromMs = scroller.scrollLeft / k;
    var toMs = Math.min(durationMs, (scroller.scrollLeft + viewWidth()) / k);
    var parts = fitted ? [] : ["from=" + (fromMs / 1000).toFixed(3), "to=" + (toMs / 1000).toFixed(3), "zoom=" + (k / fitK()).toFixed(1)];
    if (memberFilter && memberFilter.value) parts.push("member=" + encodeURIComponent(memberFilter.value));
    if (topicFilter && topicFilter.value) parts.push("topic=" + encodeURIComponent(topicFilter.value));
    if (openViolation) parts.push("v=" + openViolation);
    var hash = parts.length ? "#" + parts.join("&") : "";
    if (hash === location.hash || (!hash && !location.hash)) return;
    try { history.replaceState(null, "", hash || location.pathname + location.search); } catch (e) { location.hash = hash; }
  }
  function restoreState() {
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var at = pair.indexOf("=");
      if (at > 0) params[pair.slice(0, at)] = decodeURIComponent(pair.slice(at + 1));
    });
    if (memberFilter && params.member) memberFilter.value = params.member;
    if (topicFilter && params.topic) topicFilter.value = params.topic;
    if (params.member || params.topic) applyFilters();
    var from = Number(params.from), to = Number(params.to), zoom = Number(params.zoom);
    if (params.from !== undefined && params.to !== undefined && to > from) showSpan(from * 1000, to * 1000);
    else if (zoom > 1) { zoomTo(fitK() * zoom, 0); scroller.scrollLeft = (Number(params.from) || 0) * 1000 * k; }
    if (params.v) explain(params.v);
  }

  window.addEventListener("resize", function () {
    if (fitted) { k = fitK(); layout(); } else drawAxis();
  });

  k = fitK();
  layout();
  restoreState();
  restoring = false;
  window.addEventListener("hashchange", function () { restoring = true; restoreState(); restoring = false; });
})();
`;
