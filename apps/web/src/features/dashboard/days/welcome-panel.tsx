import { ADD_DEVICE_ROUTE, TEXT } from "@daysync/shared";
import { Link } from "react-router";
import { useCurrentUser } from "../../../lib/session-services.ts";
import { messageLifetimePhrase } from "../plan/message-lifetime.ts";
import "./days.css";

/** First-run panel of /dashboard/home, where registration lands. */
export function WelcomePanel() {
  const user = useCurrentUser();
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
          <li>Sign in on your phone or computer with the same account, or choose Add a device and point the phone's camera at the code.</li>
          <li>Press Copy there, and paste it where you need it.</li>
        </ol>
        <Link to={ADD_DEVICE_ROUTE} className="btn btn-primary btn-sm welcome-add">
          Add a device
        </Link>
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
