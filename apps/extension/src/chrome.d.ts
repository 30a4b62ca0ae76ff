/**
 * The few extension APIs Daysync uses, typed by hand (no @types/chrome for a dozen calls): Chrome's `chrome` namespace,
 * which Firefox also gives with promises in Manifest V3.
 */
declare namespace chrome {
  namespace storage {
    interface Area {
      get(keys: string | string[]): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
      remove(keys: string | string[]): Promise<void>;
    }
    const local: Area;
    const onChanged: { addListener(listener: (changes: Record<string, { newValue?: unknown }>, area: string) => void): void };
  }
  namespace permissions {
    interface Permissions {
      origins?: string[];
      permissions?: string[];
    }
    function request(permissions: Permissions): Promise<boolean>;
    function contains(permissions: Permissions): Promise<boolean>;
    function remove(permissions: Permissions): Promise<boolean>;
  }
  namespace runtime {
    function getURL(path: string): string;
    function openOptionsPage(): Promise<void>;
    function sendMessage(message: unknown): Promise<unknown>;
    const onMessage: {
      addListener(listener: (message: unknown, sender: unknown, sendResponse: (response: unknown) => void) => boolean | undefined): void;
    };
    const onInstalled: { addListener(listener: () => void): void };
    const onStartup: { addListener(listener: () => void): void };
  }
  namespace tabs {
    interface Tab {
      id?: number;
      url?: string;
      title?: string;
    }
    function create(properties: { url: string }): Promise<Tab>;
  }
  namespace contextMenus {
    type Context = "selection" | "link" | "page" | "image";
    interface OnClickData {
      menuItemId: string | number;
      selectionText?: string;
      linkUrl?: string;
      srcUrl?: string;
      pageUrl?: string;
    }
    function create(properties: { id: string; title: string; contexts: Context[] }): void;
    function removeAll(): Promise<void>;
    const onClicked: { addListener(listener: (info: OnClickData, tab?: tabs.Tab) => void): void };
  }
  namespace action {
    function setBadgeText(details: { text: string }): Promise<void>;
    function getBadgeText(details: Record<string, never>): Promise<string>;
    function setBadgeBackgroundColor(details: { color: string }): Promise<void>;
  }
}
declare namespace chrome.notifications {
  interface Options {
    type: "basic";
    iconUrl: string;
    title: string;
    message: string;
    buttons?: { title: string }[];
  }
  function create(id: string, options: Options): void;
  function clear(id: string): void;
  const onButtonClicked: { addListener(listener: (id: string, button: number) => void): void };
  const onClicked: { addListener(listener: (id: string) => void): void };
}
declare namespace chrome.offscreen {
  function createDocument(parameters: { url: string; reasons: "CLIPBOARD"[]; justification: string }): Promise<void>;
}
