/** The few parts of the `x11` package (a pure-JavaScript X11 client, without types of its own) that global-hotkey.ts uses. */
declare module "x11" {
  namespace x11 {
    /** An X protocol error: `error` is its code (10 BadAccess). */
    interface X11Error extends Error {
      error?: number;
    }

    interface X11Event {
      name?: string;
      keycode?: number;
      buttons?: number;
    }

    interface X11Client {
      /** A void request: `done` gets null once the server got past it, or its error (return true: handled). */
      GrabKey(
        window: number,
        ownerEvents: number,
        modifiers: number,
        keycode: number,
        pointerMode: number,
        keyboardMode: number,
        done: (error: X11Error | null) => boolean | undefined,
      ): void;
      GetKeyboardMapping(firstKeycode: number, count: number, callback: (error: X11Error | null, keysyms: number[][]) => void): void;
      on(event: "event", listener: (event: X11Event) => void): this;
      on(event: "error", listener: (error: X11Error) => void): this;
      on(event: "end", listener: () => void): this;
      terminate(): void;
    }

    interface X11Display {
      client: X11Client;
      screen: Array<{ root: number }>;
      min_keycode: number;
      max_keycode: number;
    }

    function createClient(options: { display?: string }, callback: (error: X11Error | null, display: X11Display) => void): X11Client;
  }
  export = x11;
}
