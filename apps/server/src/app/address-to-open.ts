/** The address a person opens in a browser for a server listening on `host`: every interface means this machine. */
export function addressToOpen(host: string, port: number): string {
  const everyInterface = host === "0.0.0.0" || host === "::" || host === "";
  const name = everyInterface ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
