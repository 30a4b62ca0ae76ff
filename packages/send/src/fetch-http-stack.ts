/**
 * tus-js-client's HTTP stack over fetch, for a service worker (which has no XMLHttpRequest, tus-js-client's browser
 * stack). Requests carry the page's cookies; a request that cannot reach the server rejects, which tus reports as
 * an error without a response. fetch reports no upload progress: a request's bytes count once it is answered.
 */
import { DetailedError, type HttpRequest, type HttpResponse, type HttpStack } from "tus-js-client";

/** A request that could not reach the server (offline, server down): tus reports it as its error's cause. */
export class Unreachable extends Error {}

/** Whether a tus error came from a request that never reached the server, rather than from an answer or the file. */
export const isUnreachable = (error: unknown): boolean => error instanceof DetailedError && error.causingError instanceof Unreachable;

class FetchResponse implements HttpResponse {
  constructor(
    private readonly response: Response,
    private readonly body: string,
  ) {}
  getStatus = () => this.response.status;
  getHeader = (header: string) => this.response.headers.get(header) ?? undefined;
  getBody = () => this.body;
  getUnderlyingObject = () => this.response;
}

class FetchRequest implements HttpRequest {
  private readonly headers: Record<string, string> = {};
  private readonly controller = new AbortController();
  private onProgress: (bytesSent: number) => void = () => undefined;

  constructor(
    private readonly method: string,
    private readonly url: string,
  ) {}

  getMethod = () => this.method;
  getURL = () => this.url;
  setHeader = (header: string, value: string) => {
    this.headers[header] = value;
  };
  getHeader = (header: string) => this.headers[header];
  setProgressHandler = (handler: (bytesSent: number) => void) => {
    this.onProgress = handler;
  };
  getUnderlyingObject = () => this.controller;

  async send(body?: Blob | Uint8Array | null): Promise<HttpResponse> {
    const response = await fetch(this.url, {
      method: this.method,
      headers: this.headers,
      body: (body ?? null) as RequestInit["body"],
      credentials: "same-origin",
      signal: this.controller.signal,
    }).catch(() => {
      throw new Unreachable("The server could not be reached");
    });
    if (body) this.onProgress(body instanceof Blob ? body.size : body.length);
    return new FetchResponse(response, await response.text());
  }

  async abort(): Promise<void> {
    this.controller.abort();
  }
}

export const fetchHttpStack: HttpStack = {
  createRequest: (method, url) => new FetchRequest(method, url),
  getName: () => "FetchHttpStack",
};
