/** The screenshot carousel (Swiper) and lightbox (yet-another-react-lightbox) with the spec's numbers. */
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useStartedApp } from "./support/app.ts";

const app = useStartedApp();

/** Opens the landing at a window width and scrolls to the gallery, which loads when it comes near. */
async function openGallery(width: number, prepare?: (page: Page) => Promise<unknown>): Promise<{ context: BrowserContext; page: Page }> {
  const context = await app.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await prepare?.(page);
  await page.goto(`${app.server.url}/`);
  await page.locator("#gallery").scrollIntoViewIfNeeded();
  try {
    await page.locator("#gallery .swiper-initialized").waitFor({ timeout: 15_000 });
  } catch (error) {
    const state = await page.evaluate(() => ({
      url: location.href,
      scrollY,
      galleryTop: document.getElementById("gallery")?.getBoundingClientRect().top,
      stage: document.querySelector("#gallery .gallery__stage")?.innerHTML.slice(0, 300),
      body: document.body.innerText.slice(0, 200),
    }));
    throw new Error(`gallery did not load: ${JSON.stringify(state)}`, { cause: error });
  }
  await page.locator("#gallery .gallery__thumb").first().waitFor();
  return { context, page };
}

/** Slides wholly inside the carousel's box, and their widths. */
async function visibleSlides(page: Page): Promise<{ count: number; widths: number[]; total: number }> {
  return page.locator("#gallery .swiper").evaluate((swiper) => {
    const box = swiper.getBoundingClientRect();
    const slides = [...swiper.querySelectorAll<HTMLElement>(".swiper-slide")].map((slide) => slide.getBoundingClientRect());
    const inside = slides.filter((s) => s.left >= box.left - 1 && s.right <= box.right + 1);
    return { count: inside.length, widths: inside.map((s) => s.width), total: slides.length };
  });
}

const lightbox = (page: Page) => page.getByRole("dialog", { name: "Screenshot viewer" });

async function expectViewing(page: Page, number: number): Promise<void> {
  // The slide shown, and the caption that on.view keeps in step with it.
  await page.waitForFunction(
    (n) =>
      document
        .querySelector(".yarl__slide_current img")
        ?.getAttribute("src")
        ?.includes(`/screenshots/${String(n).padStart(2, "0")}-`) === true &&
      document.querySelector(".gallery-lightbox__caption")?.textContent?.startsWith(`${n} / 10`) === true,
    number,
  );
}

describe("screenshot carousel", () => {
  it("shows 6 slides per view at 1280 px, 40 px apart", async () => {
    const { context, page } = await openGallery(1280);
    const { count, widths, total } = await visibleSlides(page);
    expect(total).toBe(10);
    expect(count).toBe(6);
    const swiperWidth = await page.locator("#gallery .swiper").evaluate((el) => el.getBoundingClientRect().width);
    for (const width of widths) expect(width).toBeCloseTo((swiperWidth - 5 * 40) / 6, 0);
    await context.close();
  });

  it("shows 2 slides per view at 800 px", async () => {
    const { context, page } = await openGallery(800);
    const { count, widths } = await visibleSlides(page);
    expect(count).toBe(2);
    const swiperWidth = await page.locator("#gallery .swiper").evaluate((el) => el.getBoundingClientRect().width);
    for (const width of widths) expect(width).toBeCloseTo((swiperWidth - 40) / 2, 0);
    await context.close();
  });

  it("shows 2 slides per view at 390 px, a phone (product.md section 8: not 6 slivers)", async () => {
    const { context, page } = await openGallery(390);
    const { count, widths } = await visibleSlides(page);
    expect(count).toBe(2);
    const swiperWidth = await page.locator("#gallery .swiper").evaluate((el) => el.getBoundingClientRect().width);
    for (const width of widths) expect(width).toBeCloseTo((swiperWidth - 40) / 2, 0);
    await context.close();
  });

  it("has clickable pagination bullets and arrows, and sized, lazy images with alt text", async () => {
    const { context, page } = await openGallery(1280);
    const bullets = page.locator("#gallery .swiper-pagination-bullet");
    expect(await bullets.count()).toBe(5);
    await bullets.nth(3).click();
    await page.waitForFunction(() => document.querySelector(".swiper-slide-active .gallery__thumb")?.getAttribute("data-index") === "3");
    await page.getByRole("button", { name: "Previous screenshots" }).click();
    await page.waitForFunction(() => document.querySelector(".swiper-slide-active .gallery__thumb")?.getAttribute("data-index") === "2");
    const images = await page.locator("#gallery img").evaluateAll((imgs) =>
      imgs.map((img) => ({
        alt: img.getAttribute("alt") ?? "",
        loading: img.getAttribute("loading"),
        width: img.getAttribute("width"),
        height: img.getAttribute("height"),
        srcset: img.getAttribute("srcset") ?? "",
      })),
    );
    expect(images).toHaveLength(10);
    for (const image of images) {
      expect(image.alt.length).toBeGreaterThan(20);
      expect(image.loading).toBe("lazy");
      expect(Number(image.width)).toBeGreaterThan(0);
      expect(Number(image.height)).toBeGreaterThan(0);
      expect(image.srcset).toMatch(/480w, .+ \d+w$/);
    }
    await context.close();
  });
});

describe("lightbox", () => {
  it("opens at the clicked screenshot, moves with the arrow keys, does not loop, and Escape focuses the last viewed", async () => {
    const { context, page } = await openGallery(1280);
    const fourth = page.locator("#gallery .gallery__thumb").nth(3);
    await fourth.click();
    await lightbox(page).waitFor();
    await expectViewing(page, 4);

    await page.keyboard.press("ArrowRight");
    await expectViewing(page, 5);
    await page.keyboard.press("ArrowLeft");
    await expectViewing(page, 4);
    await page.keyboard.press("ArrowLeft");
    await expectViewing(page, 3);

    await page.keyboard.press("Escape");
    await lightbox(page).waitFor({ state: "detached" });
    // Viewing moved from screenshot 4 to 3, so focus lands on thumbnail 3, not on the one clicked.
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-index") === "2");
    await context.close();
  });

  it("Tab six times inside the lightbox then Escape closes it, and the carousel shows the last viewed image", async () => {
    const { context, page } = await openGallery(1280);
    await page.getByRole("button", { name: /4\s*Add a device$/ }).click();
    await lightbox(page).waitFor();
    await expectViewing(page, 4);
    for (let n = 5; n <= 8; n += 1) {
      await page.keyboard.press("ArrowRight");
      await expectViewing(page, n);
    }

    // Previous, Next and Close are all enabled at screenshot 8: six Tabs go round them twice and never leave the dialog.
    const reached: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press("Tab");
      const focused = lightbox(page).locator(":focus");
      expect(await focused.count(), `Tab ${i + 1} left the lightbox`).toBe(1);
      reached.push((await focused.getAttribute("aria-label")) ?? "");
    }
    expect(new Set(reached)).toEqual(new Set(["Previous", "Next", "Close"]));

    await page.keyboard.press("Escape");
    await lightbox(page).waitFor({ state: "detached" });
    // Thumbnail 8 was off to the right of the six shown at first; the carousel now shows it, and it has the focus.
    const eighth = page.locator("#gallery").getByRole("button", { name: /8\s*On a phone$/ });
    await page.waitForFunction((el) => document.activeElement === el, await eighth.elementHandle());
    await page.waitForFunction(
      (el) => {
        const box = el?.closest(".swiper")?.getBoundingClientRect();
        const thumb = el?.getBoundingClientRect();
        return !!box && !!thumb && thumb.left >= box.left - 1 && thumb.right <= box.right + 1;
      },
      await eighth.elementHandle(),
    );
    expect(await eighth.isVisible()).toBe(true);
    await context.close();
  });

  it("is finite: the first screenshot has no previous one", async () => {
    const { context, page } = await openGallery(1280);
    await page.locator("#gallery .gallery__thumb").first().click();
    await lightbox(page).waitFor();
    await expectViewing(page, 1);
    expect(await page.getByRole("button", { name: "Previous" }).isDisabled()).toBe(true);
    await page.keyboard.press("ArrowLeft");
    await page.waitForTimeout(600);
    await expectViewing(page, 1);
    await context.close();
  });

  it("keeps focus inside while open", async () => {
    const { context, page } = await openGallery(1280);
    await page.locator("#gallery .gallery__thumb").nth(1).click();
    await lightbox(page).waitFor();
    // The page behind is inert, and Tab cycles through the lightbox's controls: never the page, nor the browser's own UI.
    const reached = new Set<string>();
    for (let i = 0; i < 8; i += 1) {
      await page.keyboard.press("Tab");
      const where = await page.evaluate(() => {
        const active = document.activeElement;
        if (!active || active === document.body) return "outside-document";
        return active.closest(".yarl__root") ? (active.getAttribute("aria-label") ?? active.className) : "page";
      });
      expect(where).not.toBe("page");
      expect(where).not.toBe("outside-document");
      reached.add(where);
    }
    expect(reached).toContain("Next");
    expect(reached).toContain("Close");
    await context.close();
  });

  it("shows the error icon when a screenshot fails to load", async () => {
    const { context, page } = await openGallery(1280, (p) => p.route("**/screenshots/04-*", (route) => route.abort()));
    await page.locator("#gallery .gallery__thumb").nth(3).click();
    await lightbox(page).waitFor();
    const error = lightbox(page).getByRole("img", { name: "This screenshot could not be loaded" });
    await error.waitFor();
    expect(await error.isVisible()).toBe(true);
    expect(await page.locator(".yarl__slide_current .yarl__slide_loading").count()).toBe(0);
    await context.close();
  });
});
