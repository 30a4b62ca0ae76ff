export {
  type DeleteAnswer,
  LiveClient,
  type LiveClientOptions,
  type LiveHandlers,
  type LiveSocket,
  type LiveStatus,
  type LostConnection,
  type PositionStore,
  type SendAnswer,
  SocketSendDropped,
  SocketSendUnavailable,
} from "./live-client.ts";
export { openPairingChannel, type PairingChannelOptions, type PairingChannelOutcome } from "./pairing-channel.ts";
export { type CloseAction, closeAction, LIVE_TIMING, type LiveTiming, parseFrame, retryDelay } from "./protocol.ts";
