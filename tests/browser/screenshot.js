// Saves a PNG of a page in headless Chromium: the documentation's pictures (docs/screenshots.py).
// Usage: node screenshot.js URL OUT.png [WIDTH] [HEIGHT] [WAIT_FOR_SELECTOR] [STEPS]
// The page is WIDTH x HEIGHT CSS pixels (default 1280 x 800); with WAIT_FOR_SELECTOR it waits until
// that element exists (a web app such as MLflow's renders after load). STEPS, separated by " ;; ",
// run before the picture: "type:TEXT" types, "key:NAME" presses a key, anything else is a selector
// clicked where the page has it. --lang=en-US: MLflow's UI refuses the POSIX locale ("Invalid language tag").
const chromium = require("@sparticuz/chromium").default;
const puppeteer = require("puppeteer-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

(async () => {
  const [url, out, width = "1280", height = "800", waitFor = "", steps = ""] = process.argv.slice(2);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "screenshot-browser-"));
  const browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    headless: true,
    env: { ...process.env, LANG: "en_US.UTF-8" },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--lang=en-US",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           `--user-data-dir=${profile}`],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: Number(width), height: Number(height) });
    await page.goto(url, { waitUntil: "networkidle0", timeout: 60000 });
    if (waitFor) await page.waitForSelector(waitFor, { timeout: 60000 });
    for (const step of steps.split(" ;; ").filter((s) => s)) {
      if (step.startsWith("type:")) await page.keyboard.type(step.slice(5));
      else if (step.startsWith("key:")) await page.keyboard.press(step.slice(4));
      else if (await page.$(step)) await page.click(step);
      await new Promise((r) => setTimeout(r, 800));
    }
    await new Promise((r) => setTimeout(r, 1000));  // fonts and late layout
    await page.screenshot({ path: out, type: "png" });
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });
