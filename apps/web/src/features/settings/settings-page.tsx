import { useQuery } from "@tanstack/react-query";
import { Spinner } from "../../components/ui/spinner.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { confirmationQueryOptions } from "./api/settings.ts";
import { DeleteAccountSection } from "./delete-account-section.tsx";
import { EmailSection } from "./email-section.tsx";
import { FreshCheck } from "./fresh-check.tsx";
import { NameSection } from "./name-section.tsx";
import { PasswordSection } from "./password-section.tsx";
import { RecoveryCodeSection } from "./recovery-code-section.tsx";
import { SignInMethods } from "./sign-in-methods.tsx";
import "../../components/ui/ui.css";
import "./settings.css";

/** /dashboard/settings: the account's name, email, password, sign-in methods, recovery code, and deleting it. */
export function SettingsPage() {
  const confirmation = useQuery(confirmationQueryOptions);
  const hasPassword = confirmation.data?.has_password;
  return (
    <div className="app-page settings-page">
      <header>
        <p className="app-page-eyebrow">Account</p>
        <h1>Settings</h1>
      </header>
      <NameSection />
      {confirmation.isPending ? <Spinner size="lg" label="Loading settings" /> : null}
      {confirmation.isError ? <p role="alert">{describeError(confirmation.error)}</p> : null}
      {hasPassword === undefined ? null : (
        <>
          <EmailSection hasPassword={hasPassword} freshCheck={<FreshCheck />} />
          <PasswordSection hasPassword={hasPassword} freshCheck={<FreshCheck />} />
          <SignInMethods />
          <RecoveryCodeSection />
          <DeleteAccountSection hasPassword={hasPassword} freshCheck={<FreshCheck />} />
        </>
      )}
    </div>
  );
}
