import { DISCUSSION_LIFETIME_MS, FREE_PLAN, TEXT } from "@daysync/shared";
import { useSiteConfig } from "../../lib/site-config.ts";
import { SiteLayout } from "./components/site-layout.tsx";
import { usePageMeta } from "./hooks/use-page-meta.ts";

const DISCUSSION_DAYS = DISCUSSION_LIFETIME_MS / (24 * 60 * 60 * 1000);

/** /privacy: what the server keeps, for how long, and who can read it (issue 27). */
export function PrivacyPage() {
  const contactEmail = useSiteConfig()?.contact_email;
  usePageMeta({
    title: `${TEXT.productName}: privacy`,
    description: "What a Daysync server keeps, for how long, and who can read it.",
    path: "/privacy",
  });
  return (
    <SiteLayout links={[]}>
      <section className="section privacy" aria-labelledby="privacy-title">
        <div className="container container--narrow">
          <h1 id="privacy-title">Privacy</h1>
          <p>
            Daysync runs on a server: this one is run by whoever installed it. This page says what that server keeps, for how long, and who
            can read it.
          </p>

          <h2>What the server keeps</h2>
          <ul>
            <li>Your account: your name, your email, and your password as a one-way hash (never the password itself).</li>
            <li>If you sign in with Google, GitHub or another provider: which account at that provider is yours and the email it gave.</li>
            <li>
              Each signed-in device: its name, the browser or command line it runs, the network address it signed in from, and when it was
              last seen.
            </li>
            <li>
              What you send to your own days: the text of your messages and your files, their names included, end-to-end encrypted (sealed
              on the device that sends them, with a key only your devices hold); their sizes, times and types, and which of your devices
              sent them.
            </li>
            <li>
              What is written in a discussion, its title and the display name you chose there, end-to-end encrypted with the discussion's
              own key, which travels in its link and QR code and never reaches the server; and, to run it, its size, times, how many members
              it has, when each joined and left, and the name someone asks to join with when they type its ID. A discussion started before
              discussions were encrypted is kept as sent until it ends, and says so.
            </li>
            <li>Your devices' public keys, and your account's key wrapped for each of them (and for a recovery code, if you made one).</li>
            <li>If you turn on notifications: the address your browser gave to deliver them.</li>
          </ul>

          <h2>For how long</h2>
          <ul>
            <li>
              Messages and their files: as long as your plan keeps them ({FREE_PLAN.max_message_duration} minutes on Free; 1 hour, 24 hours
              or without limit on Premium, as you choose). Then they are deleted, files included, and never served again.
            </li>
            <li>
              Discussions: {DISCUSSION_DAYS} days, or longer when a member extends one. When a discussion ends, its messages and files are
              deleted.
            </li>
            <li>An upload you started and did not finish: deleted after a day.</li>
            <li>A device's sign-in: until you sign it out, from that device or from another.</li>
            <li>
              Your account: until it is deleted. Deleting it removes everything above at once: nothing of the account is left in the
              database or on disk.
            </li>
            <li>The server does not log each request; its logs hold warnings and errors, not what you send.</li>
          </ul>

          <h2 id="who-can-read">Who can read it</h2>
          <ul>
            <li>You, on your signed-in devices.</li>
            <li>
              In a discussion, its members read its messages and files and see the display name you chose there; never your email or your
              other messages.
            </li>
            <li>
              The person who runs this server, and anyone who can read its database, its disk or its backups: not your own messages, your
              files, their names, previews or notifications, which are end-to-end encrypted, nor what you search for, which is searched on
              your device, nor what is written in a discussion, its title or its members' names, which are end-to-end encrypted with the
              discussion's key (except in a discussion started before discussions were encrypted, kept as sent until it ends). They also see
              what no encryption hides here: sizes, times, types, counts, which of your devices sent what, who is in which discussion, how
              many members each has and when each joined and left.
            </li>
            <li>
              The web app comes from this server: a server run to do harm could send a changed app that reads what it decrypts. The command
              line, installed from npm, does not depend on it.
            </li>
            <li>Where this server takes payments, Stripe handles the payment; Daysync keeps only which plan you bought and until when.</li>
          </ul>
          {contactEmail ? (
            <p>
              Questions: <a href={`mailto:${contactEmail}`}>{contactEmail}</a>.
            </p>
          ) : null}
        </div>
      </section>
    </SiteLayout>
  );
}
