import { ADD_DEVICE_ROUTE, PAIR_ROUTE, TEXT } from "@daysync/shared";
import { Link } from "react-router";
import { useCurrentUser } from "../../../lib/session-services.ts";
import { messageLifetimePhrase } from "../plan/message-lifetime.ts";
import { useMediaQuery } from "../shell/use-media-query.ts";
import "./days.css";

/** A phone or a small tablet: a touch screen is the main pointer and the screen is narrow. */
const PHONE = "(pointer: coarse) and (max-width: 900px)";

/** First-run panel of /dashboard/home, where registration lands; its steps are worded for the device it is on. */
export function WelcomePanel() {
  const user = useCurrentUser();
  const onPhone = useMediaQuery(PHONE);
  const firstName = user.name.trim().split(/\s+/)[0] ?? user.name;
  return (
    <section className="welcome" aria-labelledby="welcome-title">
      <div className="welcome-body">
        <h2 id="welcome-title">{TEXT.atHome}</h2>
        <p>
          Welcome to {TEXT.productName}, {firstName}. Anything you write below appears on every device where you are signed in, within a
          second.
        </p>
        <ol className="welcome-steps">
          <li>Type a message and press Enter.</li>
          {onPhone ? (
            <li>
              On your computer, open {window.location.host} and sign in with the same account, or choose 'Sign in using connected device'
              there and scan its code with this phone (Scan a code below).
            </li>
          ) : (
            <li>Sign in on your phone with the same account, or choose Add a device here and point the phone's camera at the code.</li>
          )}
          <li>Press Copy there, and paste it where you need it.</li>
        </ol>
        {onPhone ? (
          <Link to={PAIR_ROUTE} className="btn btn-primary btn-sm welcome-add">
            Scan a code
          </Link>
        ) : (
          <Link to={ADD_DEVICE_ROUTE} className="btn btn-primary btn-sm welcome-add">
            Add a device
          </Link>
        )}
        <p className="welcome-note">
          On the {user.title_subscription}, {messageLifetimePhrase(user.max_message_duration)}.{" "}
          <Link to="/dashboard/plan">See your plan</Link>
        </p>
      </div>
      <Link to="/dashboard" className="btn btn-secondary btn-sm welcome-close">
        Got it
      </Link>
    </section>
  );
}
