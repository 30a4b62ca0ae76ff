import jsQR from "jsqr";
import { useEffect, useRef, useState } from "react";
import { CameraIcon } from "../../components/ui/icons.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { ownOrigins } from "../../lib/server-address.ts";
import { pairCodeFromScan } from "./pair-link.ts";

type ScanState = "off" | "starting" | "scanning" | "no-camera" | "denied" | "failed";

const SCAN_EVERY_MS = 200;
const MAX_SCAN_WIDTH = 640;

const MESSAGES: Partial<Record<ScanState, string>> = {
  "no-camera": "No camera is available here. Type the code shown under the QR code instead.",
  denied: "Daysync may not use the camera. Allow it in the browser's site settings, or type the code instead.",
  failed: "The camera could not be started. Type the code shown under the QR code instead.",
};

function stateOfError(error: unknown): ScanState {
  const name = error instanceof DOMException ? error.name : "";
  if (name === "NotAllowedError" || name === "SecurityError") return "denied";
  if (name === "NotFoundError" || name === "OverconstrainedError") return "no-camera";
  return "failed";
}

/** Reads a QR code from the camera (jsQR on video frames); a Daysync sign-in link gives its code. */
export function QrScanner({ onCode }: { onCode: (code: string, secret: string | null) => void }) {
  const [state, setState] = useState<ScanState>("off");
  /** Camera wanted: the stream lives as long as this stays true, whatever the state shows. */
  const [cameraOn, setCameraOn] = useState(false);
  const [foreign, setForeign] = useState(false);
  const videoRef = useRef<HTMLVideoElement>(null);
  const onCodeRef = useRef(onCode);
  onCodeRef.current = onCode;
  // A code shown by a device on localhost names the server's home network address instead: both are this server.
  const origins = useRef<string[]>([window.location.origin]);
  useEffect(() => {
    void ownOrigins().then((found) => {
      origins.current = found;
    });
  }, []);

  useEffect(() => {
    if (!cameraOn) return;
    let stream: MediaStream | undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    let active = true;
    const canvas = document.createElement("canvas");
    const context = canvas.getContext("2d", { willReadFrequently: true });

    const scan = () => {
      const video = videoRef.current;
      if (!video || !context || video.readyState < video.HAVE_ENOUGH_DATA || video.videoWidth === 0) return;
      const scale = Math.min(1, MAX_SCAN_WIDTH / video.videoWidth);
      canvas.width = Math.round(video.videoWidth * scale);
      canvas.height = Math.round(video.videoHeight * scale);
      context.drawImage(video, 0, 0, canvas.width, canvas.height);
      const frame = context.getImageData(0, 0, canvas.width, canvas.height);
      const found = jsQR(frame.data, frame.width, frame.height, { inversionAttempts: "attemptBoth" });
      if (!found) return;
      const scanned = pairCodeFromScan(found.data, origins.current);
      if (!scanned) return setForeign(true);
      clearInterval(timer);
      setCameraOn(false);
      onCodeRef.current(scanned.code, scanned.secret);
    };

    (async () => {
      try {
        if (!navigator.mediaDevices?.getUserMedia) throw new DOMException("No camera API", "NotFoundError");
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
        const video = videoRef.current;
        if (!active || !video) return;
        video.srcObject = stream;
        await video.play();
        setState("scanning");
        timer = setInterval(scan, SCAN_EVERY_MS);
      } catch (error) {
        if (!active) return;
        setState(stateOfError(error));
        setCameraOn(false);
      }
    })();

    return () => {
      active = false;
      clearInterval(timer);
      for (const track of stream?.getTracks() ?? []) track.stop();
    };
  }, [cameraOn]);

  const start = () => {
    setForeign(false);
    setState("starting");
    setCameraOn(true);
  };
  const stop = () => {
    setCameraOn(false);
    setState("off");
  };

  const message = MESSAGES[state];
  const showVideo = state === "starting" || state === "scanning";
  return (
    <div className="qr-scanner">
      <div className="qr-scanner-view" hidden={!showVideo}>
        <video ref={videoRef} muted playsInline aria-label="Camera view" />
        {state === "starting" ? <Spinner size="lg" label="Starting the camera" /> : null}
      </div>
      {state === "scanning" ? (
        <p className="muted" role="status">
          {foreign
            ? "That QR code is not a Daysync sign-in code. Point the camera at the code on the other device."
            : "Point the camera at the code on the other device."}
        </p>
      ) : null}
      {message ? (
        <p className="pair-error" role="alert">
          {message}
        </p>
      ) : null}
      {state === "off" || message ? (
        <button type="button" className="btn btn-secondary" onClick={start}>
          <CameraIcon size={18} />
          {state === "off" ? "Scan with the camera" : "Try the camera again"}
        </button>
      ) : (
        <button type="button" className="btn btn-ghost btn-sm" onClick={stop}>
          Stop the camera
        </button>
      )}
    </div>
  );
}
