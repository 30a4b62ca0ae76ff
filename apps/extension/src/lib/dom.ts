/** The element with this id on the page, of this type; a page missing one of its own elements is a build error, so it throws. */
export function element<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`${location.pathname} has no #${id}`);
  return found;
}

/** Shows a sentence in a status or error element, or hides the element when there is none. */
export function say(target: HTMLElement, text: string | undefined): void {
  target.textContent = text ?? "";
  target.hidden = !text;
}
