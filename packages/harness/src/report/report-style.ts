/** The report's stylesheet (inline: the page loads nothing). Member and state colours come from report-palette. */
export const REPORT_CSS = `
:root{--fg:#1f2328;--muted:#636c76;--line:#d0d7de;--panel:#f6f8fa;--red:#cf222e;--green:#1a7f37;--blue:#0969da}
*{box-sizing:border-box}
html{scroll-behavior:smooth}
body{margin:0;font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif;color:var(--fg);background:#fff}
header{padding:16px 24px 14px;border-bottom:1px solid var(--line);background:var(--panel)}
h1{font-size:20px;margin:0 0 8px;font-weight:650}
h1 .scenario{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:18px}
h2{font-size:16px;margin:0 0 10px;font-weight:650}
h2.sub{margin-top:18px}
h3{font-size:13.5px;margin:14px 0 6px;font-weight:650}
main{padding:0 24px 48px}
section{margin:22px 0 28px}
a{color:var(--blue)}
.facts{display:flex;flex-wrap:wrap;gap:4px 22px;color:var(--muted);margin-top:6px}
.facts b{color:var(--fg);font-weight:600}
.verdict{display:inline-block;padding:3px 12px;border-radius:14px;font-weight:650;font-size:13.5px}
.verdict.ok{background:#dafbe1;color:var(--green)}
.verdict.fail{background:#ffebe9;color:var(--red)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
.replay{background:#fff;border:1px solid var(--line);padding:1px 7px;border-radius:4px;user-select:all}
nav{margin-top:10px}
nav a{margin-right:16px;text-decoration:none;font-weight:550}
.notes{background:#fff8c5;border:1px solid #d4a72c66;border-radius:6px;padding:6px 12px;margin:14px 0 0}
.muted{color:var(--muted)}
.toolbar{display:flex;align-items:center;gap:6px;margin:0 0 6px;flex-wrap:wrap}
.toolbar button{font:inherit;font-weight:600;min-width:34px;padding:2px 10px;border:1px solid var(--line);background:#fff;border-radius:6px;cursor:pointer}
.toolbar button:hover{background:var(--panel)}
.readout{font-variant-numeric:tabular-nums;color:var(--fg);min-width:64px;padding:0 4px}
.hint{color:var(--muted);font-size:12px}
.legend{display:flex;flex-wrap:wrap;align-items:center;gap:3px 12px;font-size:12px;margin:2px 0}
.legend b{font-weight:600;margin-right:2px}
.key{display:inline-flex;align-items:center;gap:4px;white-space:nowrap}
.key i{display:inline-block;width:13px;height:11px;border-radius:2px;border:1px solid rgba(0,0,0,.12)}
.key[data-member]{cursor:default}
.key svg{overflow:visible}
.tl-scroll{overflow:auto;max-height:calc(100vh - 24px);border:1px solid var(--line);border-radius:6px;margin-top:8px;overscroll-behavior:contain}
.tl-grid{display:grid;width:max-content}
.tl-corner{position:sticky;left:0;top:0;z-index:4;background:#fff;border-bottom:1px solid var(--line);border-right:1px solid var(--line);font-size:11px;color:var(--muted);padding:10px 8px}
.tl-axis{position:sticky;top:0;z-index:3;background:#fff;border-bottom:1px solid var(--line);display:block;cursor:crosshair}
.tl-labels{position:sticky;left:0;z-index:2;background:#fff;border-right:1px solid var(--line);display:block}
.tl-plot{display:block}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif}
.sh{font-weight:650;font-size:12px;fill:var(--fg)}
.rl{font-size:11px;fill:var(--fg)}
.rl.muted{fill:var(--muted)}
.rl.topic{font-weight:600}
.rs{font-size:9.5px;fill:var(--muted)}
.pn{font-size:8px;fill:#57606a;text-anchor:end}
.rule{stroke:#d0d7de;stroke-width:1;vector-effect:non-scaling-stroke}
.stripe{fill:rgba(140,149,159,.09)}
.seg{stroke:#fff;stroke-width:1;vector-effect:non-scaling-stroke}
.lbl{font-size:10px;fill:#1f2328;pointer-events:none}
.lbl.sm{font-size:8.5px}
.lbl.ep{font-size:9px;fill:#424a53}
.lbl.flbl{font-size:9.5px}
.note{font-size:10.5px;fill:var(--muted);font-style:italic;pointer-events:none}
.own{stroke-width:.8;vector-effect:non-scaling-stroke}
.own.z{fill-opacity:.25;stroke-opacity:.6;stroke-dasharray:2 2}
.conflict{fill:rgba(207,34,46,.5)}
.fault{stroke-width:1;vector-effect:non-scaling-stroke}
.fault-message{fill:#ffe3bf;stroke:#e8890c;background:#ffd8a8}
.fault-partition{fill:#e2d9ff;stroke:#7048e8;background:#d0bfff}
.fault.inferred{stroke-dasharray:3 2}
.band-message{fill:rgba(255,160,40,.09)}
.band-partition{fill:rgba(112,72,232,.11)}
.band-down{fill:rgba(50,50,50,.08)}
.band-message-key{background:rgba(255,160,40,.35)}
.band-partition-key{background:rgba(112,72,232,.35)}
.pb{stroke-width:1;vector-effect:non-scaling-stroke}
.pb-down{fill:rgba(36,41,47,.62);stroke:#24292f;background:rgba(36,41,47,.62)}
.pb-paused{fill:rgba(9,105,218,.30);stroke:#0969da;background:rgba(9,105,218,.35)}
.pb-app-paused{fill:rgba(232,137,12,.30);stroke:#e8890c;background:rgba(232,137,12,.35)}
.ge{fill:none;stroke:#1f4e9c;stroke-width:1.8;vector-effect:non-scaling-stroke}
.ae{fill:none;stroke:#e8890c;stroke-width:1.8;stroke-dasharray:6 3;vector-effect:non-scaling-stroke}
.sw-ge{fill:#1f4e9c}
.sw-ae{fill:#e8890c}
.unowned{fill:rgba(207,34,46,.22);stroke:#cf222e;stroke-width:1;vector-effect:non-scaling-stroke}
.sw-unowned{fill:rgba(207,34,46,.45)}
.axisline{stroke:#d0d7de;stroke-width:1;vector-effect:non-scaling-stroke}
.pollgap{stroke:#e8890c;stroke-width:2.5;stroke-dasharray:5 3;vector-effect:non-scaling-stroke}
.vline{stroke:#cf222e;stroke-width:1.6;stroke-dasharray:7 3;vector-effect:non-scaling-stroke}
.pt use{stroke:#fff;stroke-width:.9}
.life-start{fill:#1a7f37}
.life-crash{fill:#24292f}
.life-pause,.life-resume{fill:#0969da}
.life-command{fill:#e8890c}
.life-clock{fill:#8250df}
.timer-timeout use{stroke:#cf222e}
.timer-leave use{stroke:#57606a}
.timer-poll{fill:#e8890c}
.target{fill:#57606a}
.conn-break{fill:#a40e26}
.conn-reset{fill:#57606a}
.conn-close{fill:#7d4e00}
.conn-connect-timeout use{stroke:#7d4e00}
.conn-down{fill:rgba(164,14,38,.45);stroke:#a40e26;stroke-width:.6;vector-effect:non-scaling-stroke}
.conn-down.open{fill:rgba(164,14,38,.12);stroke-dasharray:3 2}
.conn-down-key{background:rgba(164,14,38,.45)}
.evmark use{stroke:#cf222e}
.evmark{cursor:pointer}
.flag{cursor:pointer}
.flag circle{fill:#cf222e;stroke:#fff;stroke-width:1}
.flag text{fill:#fff;font-size:10px;font-weight:700;text-anchor:middle}
#tl-cursor{stroke:rgba(31,35,40,.4);stroke-width:1;pointer-events:none;display:none}
#tl-brush{fill:rgba(9,105,218,.18)}
.tick line{stroke:#8c959f}
.tick text{font-size:10.5px;fill:#57606a;text-anchor:middle}
#tl-grid line{stroke:rgba(140,149,159,.25)}
#tl-plot.pick .own{opacity:.12}
#tl-plot.pick .own.on{opacity:1}
table{border-collapse:collapse;margin:6px 0 14px}
table.events{width:100%}
th,td{padding:4px 10px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
th{font-weight:600;background:var(--panel);vertical-align:bottom}
.table-scroll{overflow-x:auto;max-width:100%}
table.metrics th{max-width:120px}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.checks td:nth-child(2){white-space:nowrap}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-weight:700;font-size:11.5px}
.badge.ok{background:#dafbe1;color:var(--green)}
.badge.fail{background:#ffebe9;color:var(--red)}
tr.fail td{background:#fff5f5}
.violation{border:1px solid #ffcecb;border-left:4px solid var(--red);border-radius:6px;padding:6px 12px 8px;margin:10px 0;background:#fffafa}
.violation:target{box-shadow:0 0 0 3px rgba(207,34,46,.3)}
.violation h3{margin:4px 0}
.violation button{font:inherit;font-size:12px;margin-left:8px;padding:0 8px;border:1px solid var(--line);background:#fff;border-radius:6px;cursor:pointer}
.flagnum{display:inline-block;min-width:20px;height:20px;border-radius:10px;background:var(--red);color:#fff;text-align:center;font-weight:700;font-size:11px;line-height:20px;padding:0 5px;text-decoration:none}
code.event{white-space:pre-wrap;word-break:break-all}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px;margin-bottom:8px}
.card{border:1px solid var(--line);border-radius:6px;padding:7px 10px;background:var(--panel)}
.cv{font-size:16px;font-weight:650;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.ck{color:var(--muted);font-size:11.5px}
.filter{font-size:12px;color:var(--muted);margin-left:8px}
.filter select{font:inherit;color:var(--fg);margin-left:3px;max-width:160px}
.rps{fill:rgba(26,127,55,.22);stroke:#1a7f37;stroke-width:1;vector-effect:non-scaling-stroke}
.lag{fill:rgba(130,80,223,.18);stroke:#8250df;stroke-width:1;vector-effect:non-scaling-stroke}
.sw-rps{fill:rgba(26,127,55,.5)}
.sw-lag{fill:rgba(130,80,223,.5)}
.hit{fill:transparent}
.xpanel{position:fixed;top:0;right:0;bottom:0;width:min(1060px,97vw);overflow:auto;background:#fff;border-left:3px solid var(--red);box-shadow:-6px 0 24px rgba(31,35,40,.18);z-index:20;padding:0 16px 24px}
.xbar{position:sticky;top:0;background:#fff;display:flex;gap:12px;align-items:center;padding:10px 0 8px;border-bottom:1px solid var(--line);z-index:1}
.xbar button{margin-left:auto;font:inherit;font-size:18px;line-height:1;padding:2px 10px;border:1px solid var(--line);background:#fff;border-radius:6px;cursor:pointer}
.explain h3{margin:12px 0 4px}
.explain button{font:inherit;font-size:12px;padding:0 8px;border:1px solid var(--line);background:#fff;border-radius:6px;cursor:pointer}
.xsvg{display:block;margin:6px 0;overflow:visible}
.xgrid{stroke:rgba(140,149,159,.25)}
.xtick{font-size:10px;fill:#57606a;text-anchor:middle}
.xlane{stroke:#eaeef2}
.xlabel{font-size:11px;fill:var(--fg);font-weight:600}
.xstate{font-size:9px;fill:#1f2328;pointer-events:none}
.xconflict{fill:rgba(207,34,46,.16)}
.xmsg line{stroke:#57606a;stroke-width:1}
.xmsg.odd line{stroke:#e8890c;stroke-dasharray:3 2}
.xmsg.lost line,.xmsg.lost path{stroke:#cf222e;stroke-width:1.4;fill:none}
.xmsg:hover line{stroke-width:2.5}
.xev{fill:#0969da;stroke:#fff;stroke-width:.8;cursor:pointer}
.xev-life{fill:#24292f}
.xev-error,.xev-reject,.xev-lost{fill:#cf222e}
.xlog{fill:#8250df}
.xconn{cursor:pointer}
.xconn path{stroke:#fff;stroke-width:.7}
.xconn.xc-break path{fill:#a40e26}
.xconn.xc-reset path{fill:#57606a}
.xconn.xc-close path{fill:#7d4e00}
.xconn.xc-connect-timeout path{fill:none;stroke:#7d4e00;stroke-width:1.6}
.xconn.xc-connect path,.xconn.xc-ready path{fill:#8c959f}
.xunnoticed{stroke:#a40e26;stroke-width:1.6;stroke-dasharray:2 2}
tr.xk-conn td:nth-child(3){color:#953800}
.xviolation{stroke:#cf222e;stroke-width:1.6;stroke-dasharray:6 3}
.xtable{max-height:50vh;overflow:auto;border:1px solid var(--line);border-radius:6px}
.xtable td{font-size:12px}
tr.xk-log td{color:#6639ba}
tr.xk-send td:nth-child(3){color:#24292f}
tr.xnow td{background:#fff0ee}
tr.xhl td{background:#fff8c5}
`;
