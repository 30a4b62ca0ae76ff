import { TEXT } from "@daysync/shared";
import { isRouteErrorResponse, Link, useRouteError } from "react-router";

/** The screen for unknown routes and router errors (400, 403, 404, 405). */
export function ErrorScreen({ status }: { status?: number }) {
  const error = useRouteError();
  let detail = status === 404 ? TEXT.notFound : "Something went wrong.";
  if (isRouteErrorResponse(error)) detail = `${error.status} ${error.statusText || ""}`.trim();
  else if (error instanceof Error) detail = error.message;
  return (
    <main className="error-screen" style={{ padding: "3rem 1.5rem", maxWidth: 640, margin: "0 auto" }}>
      <h1>{TEXT.errorHeading}</h1>
      <p style={{ fontSize: "1.25rem" }}>{detail}</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </main>
  );
}

/** Matched by the catch-all route. */
export function NotFound() {
  return <ErrorScreen status={404} />;
}
