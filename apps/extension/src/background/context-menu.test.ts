import { describe, expect, it } from "vitest";
import { MENU_ID, whatToSend } from "./context-menu.ts";
import { imageName } from "./image-send.ts";

const click = (info: Partial<chrome.contextMenus.OnClickData>) => ({ menuItemId: MENU_ID, ...info });

describe("what 'Send to Daysync' sends", () => {
  it("takes the selection first, then the link, then the image, then the page's address", () => {
    const page = { pageUrl: "https://example.com/a" };
    expect(whatToSend(click({ ...page, selectionText: "words", linkUrl: "https://l", srcUrl: "https://i" }))).toEqual({ text: "words" });
    expect(whatToSend(click({ ...page, linkUrl: "https://l", srcUrl: "https://i" }))).toEqual({ text: "https://l" });
    expect(whatToSend(click({ ...page, srcUrl: "https://i/cat.png" }))).toEqual({ image: "https://i/cat.png" });
    expect(whatToSend(click({ ...page, selectionText: "   " }))).toEqual({ text: "https://example.com/a" });
    expect(whatToSend(click({}))).toBeUndefined();
  });

  it("names an image by its address, or by its type when the address names none", () => {
    expect(imageName("https://cdn.example.com/photos/Cat%20on%20sofa.jpg?w=300", "image/jpeg")).toBe("Cat on sofa.jpg");
    expect(imageName("data:image/png;base64,AAAA", "image/png")).toBe("image.png");
    expect(imageName("https://example.com/", "image/webp")).toBe("image.webp");
    expect(imageName("not a url", "application/x-unknown")).toBe("image.img");
  });
});
