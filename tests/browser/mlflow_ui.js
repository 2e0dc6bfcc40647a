// Opens pages of a running MLflow UI in headless Chromium and prints a JSON verdict per page: whether
// each expected text showed up (and how often), the table's column headers, and the page's script errors. With a screenshot folder, saves each
// page as a PNG. MLflow's page needs a locale (else: "Invalid language tag: en-US@posix").
// Usage: node mlflow_ui.js PAGES.json
//   PAGES.json: {"width": 1440, "height": 900, "screenshots": "folder or null",
//                "pages": [{"name", "url", "expect": ["text", ...], "click": ["text to click", ...]}]}
const chromium = require("@sparticuz/chromium").default;
const puppeteer = require("puppeteer-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

const plan = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));

async function shows(page, texts, timeout) {
  try {
    await page.waitForFunction((wanted) => wanted.every((t) => document.body.innerText.includes(t)),
                               { timeout, polling: 500 }, texts);
  } catch (e) { /* reported below, text by text */ }
  return page.evaluate((wanted) => Object.fromEntries(wanted.map((t) => [t, document.body.innerText.includes(t)])),
                       texts);
}

async function clickText(page, text) {
  // The innermost element whose own text is (or starts with) ``text``, clicked through its button if any.
  const handle = await page.evaluateHandle((wanted) => {
    const all = Array.from(document.querySelectorAll("body *")).filter((e) => e.offsetParent !== null);
    const own = (e) => Array.from(e.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim();
    const hit = all.find((e) => own(e) === wanted) || all.find((e) => own(e).startsWith(wanted));
    return hit ? (hit.closest("button, a, [role=button], [role=tab]") || hit) : null;
  }, text);
  const element = handle.asElement();
  if (!element) return false;
  await element.click();
  return true;
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "mlflow-browser-"));
  const browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    headless: true,
    env: { ...process.env, LANG: "en_US.UTF-8", LANGUAGE: "en_US" },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--lang=en-US",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           `--user-data-dir=${profile}`],
  });
  const results = [];
  try {
    for (const spec of plan.pages) {
      const page = await browser.newPage();
      await page.setViewport({ width: plan.width || 1440, height: plan.height || 900 });
      await page.setExtraHTTPHeaders({ "Accept-Language": "en-US,en" });
      await page.evaluateOnNewDocument(() => {  // MLflow's assistant panel opens itself on first load
        localStorage.setItem("mlflow.assistant.panelOpen_v1", "false");
        localStorage.setItem("mlflow.assistant.fab.autoOpenedOnFirstLoad_v1", "true");
      });
      const errors = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(spec.url, { waitUntil: "networkidle2", timeout: 120000 });
      const clicked = [];
      for (const text of spec.click || []) {
        await shows(page, [text], 60000);
        clicked.push(await clickText(page, text));
        await new Promise((r) => setTimeout(r, 1000));
      }
      const found = await shows(page, spec.expect || [], spec.timeout || 60000);
      await new Promise((r) => setTimeout(r, 1500));  // the last requests' rendering settles
      if (plan.screenshots) {
        await page.screenshot({ path: path.join(plan.screenshots, `${spec.name}.png`) });
      }
      const headers = await page.evaluate(() => Array.from(document.querySelectorAll('[role="columnheader"], th'))
        .map((h) => h.innerText.trim()).filter((t) => t));
      const counts = await page.evaluate((wanted) => Object.fromEntries(wanted.map(
        (t) => [t, document.body.innerText.split(t).length - 1])), spec.expect || []);
      results.push({ name: spec.name, found, counts, clicked, errors, headers });
      await page.close();
    }
    console.log(JSON.stringify(results));
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
