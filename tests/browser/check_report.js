// Opens an HTML report in headless Chromium (1280 px wide) and prints a JSON verdict: script
// errors, tables wider than the page, and whether a click on a header sorts its table.
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
    const layout = await page.evaluate(() => {
      const page = document.documentElement.clientWidth;
      const tables = Array.from(document.querySelectorAll("table")).map((t) => {
        const box = t.parentElement.getBoundingClientRect();
        return { inScrollBox: t.parentElement.classList.contains("scroll"), boxRight: box.right,
                 tableWidth: t.scrollWidth, boxWidth: t.parentElement.clientWidth };
      });
      return { page, scrollWidth: document.documentElement.scrollWidth, tables };
    });
    // Sort the first table by its last column, twice (ascending, then descending).
    const column = await page.evaluate(() => document.querySelector("table thead tr").cells.length - 1);
    const read = () => page.evaluate((c) => Array.from(document.querySelector("table").tBodies[0].rows)
      .map((r) => r.cells[c].textContent.trim()), column);
    const before = await read();
    await page.click(`table thead th:nth-child(${column + 1})`);
    const ascending = await read();
    await page.click(`table thead th:nth-child(${column + 1})`);
    const descending = await read();
    console.log(JSON.stringify({ errors, requests, layout, sort: { before, ascending, descending } }));
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
