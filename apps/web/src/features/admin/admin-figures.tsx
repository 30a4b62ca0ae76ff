import { type AdminFigures, formatFileSize } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { Spinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { hourOf } from "./admin-dates.ts";
import { figuresQueryOptions } from "./api/admin.ts";

/** The server's figures: accounts, storage, activity by hour. */
export function Figures() {
  const figures = useQuery(figuresQueryOptions);
  if (figures.isPending) return <Spinner size="lg" label="Loading the figures" />;
  if (figures.isError) return <p role="alert">{describeError(figures.error)}</p>;
  const f = figures.data;
  const facts: Array<[string, string]> = [
    ["Accounts", String(f.accounts)],
    ["Devices online now", f.devices_online_scope === "all" ? String(f.devices_online) : `${f.devices_online} (this process only)`],
    ["Messages this hour", String(f.messages_last_hour)],
    ["Messages, last 24 hours", String(f.messages_last_day)],
    ["Files this hour", String(f.files_last_hour)],
    ["Files, last 24 hours", String(f.files_last_day)],
    ["Files stored", formatFileSize(f.storage_used)],
    ["Left on the files volume", `${formatFileSize(f.volume_free)} of ${formatFileSize(f.volume_size)}`],
    ["Open discussions", String(f.open_discussions)],
  ];
  return (
    <section className="admin-section" aria-labelledby="admin-figures">
      <h2 id="admin-figures">Figures</h2>
      <dl className="admin-figures">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <HourChart hours={f.hours} />
    </section>
  );
}

/** Messages per hour as bars; the same numbers as a table for whoever cannot see the chart. */
function HourChart({ hours }: { hours: AdminFigures["hours"] }) {
  const max = Math.max(1, ...hours.map((h) => h.messages));
  const width = 24 * 14;
  const height = 80;
  const total = hours.reduce((sum, h) => sum + h.messages, 0);
  return (
    <figure className="admin-chart">
      <svg viewBox={`0 0 ${width} ${height + 14}`} role="img" aria-labelledby="admin-chart-title">
        <title id="admin-chart-title">Messages per hour, last 24 hours</title>
        {hours.map((h, i) => {
          const barHeight = Math.round((h.messages / max) * height);
          return (
            <rect key={h.start} x={i * 14 + 2} y={height - barHeight} width={10} height={barHeight} rx={2}>
              <title>{`${hourOf(h.start)}: ${h.messages} messages, ${h.files} files`}</title>
            </rect>
          );
        })}
        <text x={0} y={height + 12}>
          {hourOf(hours[0]?.start ?? 0)}
        </text>
        <text x={width} y={height + 12} textAnchor="end">
          {hourOf(hours.at(-1)?.start ?? 0)}
        </text>
      </svg>
      <figcaption id="admin-chart-caption">
        Messages per hour over the last 24 hours: {total} in all, at most {max === 1 && total === 0 ? 0 : max} in one hour.
      </figcaption>
      <details>
        <summary>Show as a table</summary>
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Hour</th>
              <th scope="col">Messages</th>
              <th scope="col">Files</th>
            </tr>
          </thead>
          <tbody>
            {hours.map((h) => (
              <tr key={h.start}>
                <td>{hourOf(h.start)}</td>
                <td>{h.messages}</td>
                <td>{h.files}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
