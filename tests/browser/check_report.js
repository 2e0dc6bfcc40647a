// Opens an HTML report in headless Chromium (1280 px wide) and prints a JSON verdict: script
// errors, requests leaving the file, the headline, tables wider than the page outside a scrolling
// box, sticky first columns, the names each run goes by in every section, answers shown as text,
// whether a click on a header sorts the leaderboard and whether a click on a question opens it.
// Usage: node check_report.js REPORT.html
const chromium = require("@sparticuz/chromium").default;  // an ES module with a default export
const puppeteer = require("puppeteer-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "report-browser-"));
  const browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           `--user-data-dir=${profile}`],
  });
  const errors = [];
  const requests = [];
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url()); });
    await page.goto("file://" + path.resolve(process.argv[2]), { waitUntil: "load" });
    const found = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const headline = document.querySelector("p.headline");
      const sections = Array.from(document.querySelectorAll("h2")).map((h) => h.id);
      // Every table, drill-down tables included (opened for measuring): inside its own scroll box?
      document.querySelectorAll("details").forEach((d) => { d.open = true; });
      const tables = Array.from(document.querySelectorAll("table")).map((t) => {
        const box = t.closest(".scroll");
        const first = t.querySelector("tbody td");
        return { inScrollBox: box !== null, boxRight: box ? box.getBoundingClientRect().right : t.getBoundingClientRect().right,
                 tableWidth: t.scrollWidth, boxWidth: box ? box.clientWidth : t.scrollWidth,
                 stickyFirst: first ? getComputedStyle(first).position === "sticky" : true };
      });
      const scrollWidth = document.documentElement.scrollWidth;
      document.querySelectorAll("details").forEach((d) => { d.open = false; });
      // The names each run goes by: every element that stands for a run shows one text.
      const names = {};
      document.querySelectorAll("[data-run]").forEach((e) => {
        const full = e.getAttribute("data-run");
        const shown = e.textContent.replace(/^(answer|f1): /, "").trim();
        (names[full] = names[full] || { shown: [], title: [] }).shown.push(shown);
        names[full].title.push(e.getAttribute("title"));
      });
      // Full names may appear as text only in the Runs key.
      const key = document.getElementById("runs");
      const keyText = key ? key.nextElementSibling.innerText : "";
      const bodyText = document.body.innerText;
      const outsideKey = Object.keys(names).filter((full) => bodyText.split(full).length - keyText.split(full).length > 0);
      const answers = Array.from(document.querySelectorAll("td.text")).map((td) => td.innerText);
      return { width, scrollWidth, headline: headline ? headline.innerText : null, sections, tables, names,
               outsideKey, answers, keyText };
    });
    // Sort the leaderboard by its last column, twice (ascending, then descending).
    const selector = "#leaderboard + .scroll table";
    const column = await page.evaluate((s) => document.querySelector(s).tHead.rows[0].cells.length - 1, selector);
    const read = () => page.evaluate((s, c) => Array.from(document.querySelector(s).tBodies[0].rows)
      .map((r) => r.cells[c].textContent.trim()), selector, column);
    const before = await read();
    await page.click(`${selector} thead th:nth-child(${column + 1})`);
    const ascending = await read();
    await page.click(`${selector} thead th:nth-child(${column + 1})`);
    const descending = await read();
    // A click on the first question link (the worst answers) opens that question's drill-down.
    let drill = null;
    if (await page.$("a.q")) {
      const target = await page.evaluate(() => document.querySelector("a.q").getAttribute("href").slice(1));
      const closedBefore = await page.evaluate((id) => !document.getElementById(id).open, target);
      await page.click("a.q");
      drill = await page.evaluate((id) => {
        const d = document.getElementById(id);
        const body = d.querySelector("table");
        return { id, open: d.open, visible: body !== null && body.getBoundingClientRect().height > 0,
                 runs: body ? Array.from(body.tBodies[0].rows).map((r) => r.cells[0].textContent.trim()) : [],
                 text: d.innerText };
      }, target);
      drill.closedBefore = closedBefore;
    }
    console.log(JSON.stringify({ errors, requests, found, sort: { before, ascending, descending }, drill }));
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
