/**
 * `daysync clip --install-service`: starts `daysync clip` at login as a user service (a systemd user unit on
 * Linux, a launchd agent on macOS, a script in the Startup folder on Windows); `--uninstall-service` removes it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { CliError } from "./errors.ts";

export const SYSTEMD_UNIT = "daysync-clip.service";
export const LAUNCHD_LABEL = "com.daysync.clip";

export interface ServiceCommand {
  /** The program and its arguments, e.g. [node, .../daysync.js, "clip", "--images"]. */
  argv: string[];
  /** Environment the service needs (the server, the config folder). */
  env: Record<string, string>;
}

/** A systemd argument: quoted, with the characters systemd expands escaped. */
const systemdQuote = (arg: string) => `"${arg.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/%/g, "%%").replace(/\$/g, "$$$$")}"`;

export function systemdUnit(command: ServiceCommand): string {
  const environment = Object.entries(command.env).map(([k, v]) => `Environment=${systemdQuote(`${k}=${v}`)}\n`);
  return `[Unit]
Description=Daysync clipboard sync (daysync clip)
After=graphical-session.target
# Never give up: the display may come up after the service.
StartLimitIntervalSec=0

[Service]
Type=simple
ExecStart=${command.argv.map(systemdQuote).join(" ")}
${environment.join("")}Restart=on-failure
RestartSec=10
# Exit code 3: this device was signed out; restarting would not help.
RestartPreventExitStatus=3

[Install]
WantedBy=default.target
`;
}

const xml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function launchdPlist(command: ServiceCommand, logFile: string): string {
  const strings = (values: string[]) => values.map((v) => `    <string>${xml(v)}</string>\n`).join("");
  const env = Object.entries({ LANG: "en_US.UTF-8", ...command.env })
    .map(([k, v]) => `    <key>${xml(k)}</key>\n    <string>${xml(v)}</string>\n`)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${strings(command.argv)}  </array>
  <key>EnvironmentVariables</key>
  <dict>
${env}  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ProcessType</key>
  <string>Interactive</string>
  <key>StandardErrorPath</key>
  <string>${xml(logFile)}</string>
</dict>
</plist>
`;
}

/** A VBScript that starts the command without a console window. */
export function windowsStartupScript(command: ServiceCommand): string {
  const vb = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const line = command.argv.map((arg) => `""${arg.replace(/"/g, '""""')}""`).join(" ");
  const env = Object.entries(command.env).map(([k, v]) => `shell.Environment("Process")(${vb(k)}) = ${vb(v)}\r\n`);
  return `' Starts daysync clip at sign-in (written by daysync clip --install-service).\r\nSet shell = CreateObject("WScript.Shell")\r\n${env.join("")}shell.Run "${line}", 0, False\r\n`;
}

interface Paths {
  systemdUnit: string;
  launchdPlist: string;
  launchdLog: string;
  windowsScript: string;
}

export function servicePaths(env: NodeJS.ProcessEnv = process.env): Paths {
  const home = env.HOME || homedir();
  const xdgConfig = env.XDG_CONFIG_HOME || path.join(home, ".config");
  const appData = env.APPDATA || path.join(home, "AppData", "Roaming");
  return {
    systemdUnit: path.join(xdgConfig, "systemd", "user", SYSTEMD_UNIT),
    launchdPlist: path.join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`),
    launchdLog: path.join(home, "Library", "Logs", "daysync-clip.log"),
    windowsScript: path.join(appData, "Microsoft", "Windows", "Start Menu", "Programs", "Startup", "daysync-clip.vbs"),
  };
}

/** Runs a service manager's command; its failure is an error naming the command to run by hand. */
function manage(program: string, args: string[], what: string, optional = false): void {
  const ran = spawnSync(program, args, { encoding: "utf8" });
  if (ran.status === 0 || optional) return;
  const why = ran.error ? ran.error.message : (ran.stderr || ran.stdout || `exit ${ran.status}`).trim();
  throw new CliError(`${what}, but "${[program, ...args].join(" ")}" failed: ${why}`);
}

function writeFile(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export function installService(command: ServiceCommand, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const paths = servicePaths(env);
  if (platform === "darwin") {
    writeFile(paths.launchdPlist, launchdPlist(command, paths.launchdLog));
    const domain = `gui/${process.getuid?.() ?? 501}`;
    manage("launchctl", ["bootout", `${domain}/${LAUNCHD_LABEL}`], "", true);
    manage("launchctl", ["bootstrap", domain, paths.launchdPlist], `Wrote ${paths.launchdPlist}`);
    return `Installed the launchd agent ${paths.launchdPlist}: daysync clip runs now and at each login. Its log: ${paths.launchdLog}`;
  }
  if (platform === "win32") {
    writeFile(paths.windowsScript, windowsStartupScript(command));
    manage("wscript.exe", [paths.windowsScript], `Wrote ${paths.windowsScript}`);
    return `Installed ${paths.windowsScript}: daysync clip runs now and at each sign-in.`;
  }
  writeFile(paths.systemdUnit, systemdUnit(command));
  manage("systemctl", ["--user", "daemon-reload"], `Wrote ${paths.systemdUnit}`);
  manage("systemctl", ["--user", "enable", "--now", SYSTEMD_UNIT], `Wrote ${paths.systemdUnit}`);
  return `Installed the systemd user service ${paths.systemdUnit}: daysync clip runs now and at each login.
See it with: systemctl --user status ${SYSTEMD_UNIT}; its log: journalctl --user -u ${SYSTEMD_UNIT}
If your desktop does not hand DISPLAY or WAYLAND_DISPLAY to user services, add this to its start-up:
  systemctl --user import-environment DISPLAY WAYLAND_DISPLAY`;
}

export function uninstallService(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const paths = servicePaths(env);
  if (platform === "darwin") {
    manage("launchctl", ["bootout", `gui/${process.getuid?.() ?? 501}/${LAUNCHD_LABEL}`], "", true);
    rmSync(paths.launchdPlist, { force: true });
    return `Removed the launchd agent ${paths.launchdPlist}.`;
  }
  if (platform === "win32") {
    rmSync(paths.windowsScript, { force: true });
    return `Removed ${paths.windowsScript}; a daysync clip started by it runs until you sign out.`;
  }
  // Disabling a unit that is not loaded fails; the file is removed either way.
  manage("systemctl", ["--user", "disable", "--now", SYSTEMD_UNIT], "", true);
  rmSync(paths.systemdUnit, { force: true });
  manage("systemctl", ["--user", "daemon-reload"], `Removed ${paths.systemdUnit}`, true);
  return `Removed the systemd user service ${paths.systemdUnit}.`;
}
