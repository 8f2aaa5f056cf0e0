/**
 * The report page's only script (inline; no libraries): zooms and pans the
 * timeline. Shapes along time sit in one group scaled by the zoom; the
 * script re-places text and glyphs from their data-t / data-a / data-b
 * times, hides labels that no longer fit, and draws the time axis and grid
 * for the visible span. It also links violations to the timeline and picks
 * out a member's partitions when its legend key is hovered.
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
  }

  function showSpan(fromMs, toMs) {
    k = clampK(viewWidth() / Math.max(toMs - fromMs, 1e-3));
    fitted = false;
    layout();
    scroller.scrollLeft = fromMs * k;
    drawAxis();
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
    requestAnimationFrame(function () { pending = false; drawAxis(); });
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
  plot.addEventListener("click", function (event) {
    var mark = event.target.closest ? event.target.closest("[data-href]") : null;
    if (mark) location.hash = mark.getAttribute("data-href");
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

  document.querySelectorAll("[data-member]").forEach(function (key) {
    var swatch = key.querySelector("i");
    var cls = swatch ? swatch.className : "";
    key.addEventListener("mouseenter", function () {
      plot.classList.add("pick");
      plot.querySelectorAll(".own." + cls).forEach(function (r) { r.classList.add("on"); });
    });
    key.addEventListener("mouseleave", function () {
      plot.classList.remove("pick");
      plot.querySelectorAll(".own.on").forEach(function (r) { r.classList.remove("on"); });
    });
  });

  window.addEventListener("resize", function () {
    if (fitted) { k = fitK(); layout(); } else drawAxis();
  });

  k = fitK();
  layout();
})();
`;
