import { TEXT } from "@daysync/shared";
import { toast } from "react-toastify";

function TitledToast({ title, body }: { title: string; body: string }) {
  return (
    <div className="titled-toast">
      <strong>{title}</strong>
      <div>{body}</div>
    </div>
  );
}

/** The spec's notices of a sign-in (by token, by a connected device, through a provider): 'Login success / Welcome' and 'Login failed / Try again'. */
export const toastLoginSuccess = () => toast.success(<TitledToast title={TEXT.loginSuccessTitle} body={TEXT.loginSuccessBody} />);
export const toastLoginFailed = () => toast.error(<TitledToast title={TEXT.loginFailedTitle} body={TEXT.loginFailedBody} />);
