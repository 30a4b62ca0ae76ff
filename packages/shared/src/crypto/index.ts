/**
 * @daysync/shared/crypto: the end-to-end encryption of decision 020, on WebCrypto and @hpke/core only, so the same
 * code runs in the page, the service worker and Node. Kept out of @daysync/shared's main entry so the server never
 * loads it.
 */

export { AccountKeys } from "./account-keys.ts";
export { makeApprovalCode, makeApprovalSecret, normalizeApprovalCode } from "./approval-exchange.ts";
export { nextEpochSender } from "./chain-rule.ts";
export { gapsOfDay, numberedOf, openDeletionNotes, sealDeletionNote } from "./deletion-notes.ts";
export { exportDeviceKeyPair, exportPublicKey, generateDeviceKeyPair, importDeviceKeyPair, importPublicKey, keyId } from "./device-key.ts";
export {
  DeviceListError,
  entryHash,
  type ListHead,
  type ListMember,
  makeSigningKey,
  type SigningKey,
  securityCode,
  signEntry,
  signingKeyOf,
  type VerifiedList,
  verifyDeviceList,
} from "./device-list.ts";
export { type AppendAnswer, type DeviceListServer, type ListView, readList } from "./device-list-sync.ts";
export { asBytes, type Bytes, fromBase64Url, fromUtf8, toBase64Url, utf8 } from "./encoding.ts";
export { deriveEpochKeys, type EpochKeys, makeEpochKey } from "./epoch-keys.ts";
export { UndecryptableError } from "./errors.ts";
export {
  createSealingSource,
  importFileKey,
  openRecord,
  openRecordStream,
  plainLength,
  RECORD_SIZE,
  type RecordCipher,
  type RecordRange,
  readFrom,
  recordsForPlainRange,
  recordsForSealedRange,
  SEALED_RECORD_SIZE,
  sealedLength,
  sealRecord,
  webCryptoRecords,
} from "./file-records.ts";
export {
  type AccountState,
  type CreateEpochAnswer,
  EpochRollbackError,
  type HeldKeys,
  type KeyStatus,
  type KeyStorage,
  type KeysServer,
  keyedSince,
  sealerOf,
} from "./held-keys.ts";
export { ApprovalRefusedError, type ApprovalStep, type KeyApprovalServer, KeyApprover, KeyRequester } from "./key-approval.ts";
export {
  type AskingKey,
  askingKey,
  type HandoverOutcome,
  makeHandover,
  pairingFragment,
  receiveHandover,
  secretOfFragment,
  verifyAskingKey,
} from "./key-handover.ts";
export type { CryptoKey, CryptoKeyPair } from "./key-types.ts";
export { memoryKeyStorage } from "./memory-key-storage.ts";
export {
  ArrivalWatch,
  dayGaps,
  dayMayHaveExpired,
  deletedNumber,
  type Gap,
  type GapOptions,
  type NumberedMessage,
} from "./message-gaps.ts";
export {
  type AskedPairing,
  exchangeAsKeyRequest,
  type PairingApproverRoutes,
  PairingRequester,
  type PairingRequesterRoutes,
  pairingApprover,
  typedPairingCode,
} from "./pairing-approval.ts";
export { derivePairingKeys, keyProof, makePairingSecret, pairingPskId, verifyKeyProof } from "./pairing-secret.ts";
export { NONCE_LENGTH, TAG_LENGTH } from "./primitives.ts";
export {
  makeRecoveryKit,
  RecoveryRefusedError,
  type RecoveryServer,
  type RecoverySigner,
  recoveryMember,
  unlockWithRecoveryCode,
} from "./recovery.ts";
export {
  deriveRecoveryKeys,
  makeRecoveryCode,
  openRecoveryAnchor,
  parseRecoveryCode,
  RecoveryCodeError,
  type RecoveryKeys,
  sealRecoveryAnchor,
} from "./recovery-code.ts";
export {
  type Admission as RoomAdmission,
  acceptAdmission,
  admit,
  answerJoin,
  checkAnswer,
  type JoinAnswer,
  type JoinRequest,
  joinerKeys,
  startJoin,
} from "./room-admission.ts";
export { RoomError, type RoomRefusal } from "./room-errors.ts";
export {
  createRoom,
  emptyHolding,
  hold,
  holdOlder,
  joinByLink,
  openRoomKeyWrap,
  type RoomHolding,
  type RoomKeyWrap,
  roomSender,
  wrapRoomKey,
} from "./room-holding.ts";
export {
  deriveRoomKeys,
  type MemberKey,
  makeMemberSeed,
  makeRoomKey,
  memberKeyOf,
  memberSecurityCode,
  nameTag,
  type RoomKeys,
} from "./room-key.ts";
export { addressWithoutFragment, keyForRoom, parseRoomLink, type RoomLinkKey, roomFragment } from "./room-link.ts";
export { type RoomMember, type RoomRoster, type TaggedMember, tagMember, verifyRoster } from "./room-members.ts";
export { type OwnPlace, openFromOwnDevices, sealForOwnDevices } from "./room-own.ts";
export { acceptRotation, makeRotation, type Rotation, sawLeave } from "./room-rotation.ts";
export {
  type OpenedRoomMessage,
  openRoomFileKey,
  openRoomMessage,
  openRoomValue,
  type RoomField,
  type RoomPlace,
  type RoomSender,
  type SealedRoomMessage,
  sealRoomFile,
  sealRoomFileKey,
  sealRoomText,
  sealRoomValue,
} from "./room-sealing.ts";
export {
  answerBody,
  entryBody,
  joinAnswerOf,
  namePlace,
  requestOf,
  sealedRoomMessageOf,
  taggedAt,
  taggedOf,
  wrapBody,
  wrapOf,
} from "./room-wire.ts";
export { type RosterRow, rosterTag, verifyRosterRow } from "./roster.ts";
export {
  type FileToSeal,
  type OpenedFile,
  openFileMessage,
  resumeFileUpload,
  type SealedFileFields,
  type SealedUpload,
  sealFileUpload,
} from "./sealed-file.ts";
export {
  type HeldEpochs,
  type Opened,
  openDayPreview,
  openMessage,
  openPushPreview,
  previewOf,
  type SealedDayFields,
  type SealedMessageFields,
  type Sealer,
  sealTextMessage,
  writtenByServer,
} from "./sealed-message.ts";
export {
  makeFileKey,
  openFileKey,
  openValue,
  parseSealedValue,
  SEALED_VALUE_PATTERN,
  type SealedField,
  type SealedPlace,
  sealFileKey,
  sealValue,
} from "./sealed-value.ts";
export {
  memorySendNumbers,
  numberedText,
  type SendNumber,
  SendNumbering,
  type SendNumbersState,
  type SendNumbersStore,
  splitNumbered,
} from "./send-numbers.ts";
export { openEpochKey, type Wrap, type WrapOpener, type WrapPlace, type WrapSender, wrapEpochKey } from "./wraps.ts";
