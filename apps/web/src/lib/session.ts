import { API, sessionResponseSchema, type User } from "@daysync/shared";
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { api } from "./api-client.ts";
import { isTransientError } from "./api-errors.ts";
import { knownUser, rememberUser } from "./offline-cache.ts";
import { readStorage, writeStorage } from "./storage.ts";

/** The cache entry of the signed-in user (null for a visitor): the one query every session-wide reset keeps. */
export const meQueryKey = ["me"] as const;

/**
 * The signed-in user, or null for a visitor. Kept current by the live connection's user.updated.
 * Without the network (or with the server down) the user this device was signed in as is trusted, so the app
 * opens with what it kept; the server is asked again as soon as the connection is back.
 */
export const meQueryOptions = queryOptions({
  queryKey: meQueryKey,
  queryFn: async ({ signal, client }): Promise<User | null> => {
    try {
      const { user } = await api.get(API.session, sessionResponseSchema, signal);
      rememberUser(user);
      return user;
    } catch (error) {
      const known = isTransientError(error) ? knownUser() : null;
      if (!known) throw error;
      window.addEventListener("online", () => void client.invalidateQueries({ queryKey: meQueryKey, exact: true }), { once: true });
      return known;
    }
  },
  staleTime: Number.POSITIVE_INFINITY,
});

export function setMe(queryClient: QueryClient, user: User | null): void {
  rememberUser(user);
  queryClient.setQueryData<User | null>(meQueryKey, user);
}

/**
 * A new session starts from an empty cache, so nothing of a previous user can show. `newDevice`: this device has
 * just signed in to an existing account, and is offered a name once (features/devices).
 */
export function startSession(queryClient: QueryClient, user: User, options: { newDevice?: boolean } = {}): void {
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== meQueryKey[0] });
  setMe(queryClient, user);
  writeStorage(NAME_DEVICE_KEY, options.newDevice ? user.id : null);
}

const NAME_DEVICE_KEY = "daysync.name-this-device";

/** Whether this device, signed in as `userId`, still has to be offered a name (until it saves one or skips). */
export const isDeviceNameOffered = (userId: string): boolean => readStorage(NAME_DEVICE_KEY) === userId;

export function endDeviceNameOffer(): void {
  writeStorage(NAME_DEVICE_KEY, null);
}

/** Loads everything shown once more, except who is signed in. */
export function reloadAllButMe(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== meQueryKey[0] });
}
