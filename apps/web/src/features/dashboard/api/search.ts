/** Search results: the query, its key and the writers that keep results current. */
import { API, type DateMessages, type Message, responseSchemas, type SearchResponse } from "@daysync/shared";
import { keepPreviousData, type QueryClient, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../lib/api-client.ts";
import { type DeviceKeys, heldEpochsOf } from "../../../lib/sealing/device-keys.ts";
import { searchableOf } from "../../../lib/sealing/opened-messages.ts";
import { useSessionServices } from "../../../lib/session-services.ts";
import { daysKey } from "./days.ts";

export const searchKey = {
  all: ["search"] as const,
  of: (q: string) => ["search", q] as const,
};

/** This device's opened copy of the text messages, searched in memory; a send or a deletion makes it stale. */
export const searchCorpusKey = ["search-corpus"] as const;
const CORPUS_STALE_MS = 30_000;
/** How far back a search on the device pages (of `MESSAGES_PAGE_MAX` each). */
const CORPUS_PAGES_MAX = 50;

/**
 * The live messages this device can read, by what a search matches: a text's words, a file's name (issue 43). Those
 * in clear (kept from before the account had a key) as they are, the sealed ones opened; `content` holds the text or
 * the file's name, and nothing of it is stored.
 */
async function openedCorpus(services: { user: { id: string }; keys: DeviceKeys }, signal: AbortSignal): Promise<Message[]> {
  const epochs = heldEpochsOf(await services.keys.knownStatus()) ?? new Map();
  const opened: Message[] = [];
  let before: string | null = null;
  for (let page = 0; page < CORPUS_PAGES_MAX; page++) {
    const query: URLSearchParams = new URLSearchParams(before ? { before } : {});
    const { messages, next }: { messages: Message[]; next: string | null } = await api.get(
      `${API.messages}?${query}`,
      responseSchemas.messagesPage,
      signal,
    );
    for (const message of messages) {
      const searchable = await searchableOf(services.user.id, epochs, message);
      if (searchable) opened.push(searchable);
    }
    if (next === null) break;
    before = next;
  }
  return opened;
}

async function daysById(queryClient: QueryClient, signal: AbortSignal): Promise<Map<string, DateMessages>> {
  const days = queryClient.getQueryData<DateMessages[]>(daysKey) ?? (await api.get(API.days, responseSchemas.days, signal)).days;
  return new Map(days.map((d) => [d.id, d]));
}

const RESULTS_MAX = 50;

/** What a search finds, as cached under `searchKey.of(q)`. */
type SearchResults = SearchResponse["results"];

/**
 * Live messages whose text or file name contains q, newest first, found on this device among those it can read
 * (`searchCorpusKey`). The words searched for never go to the server (decision 020): they say what was sent.
 */
export function useSearch(q: string) {
  const services = useSessionServices();
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: searchKey.of(q),
    queryFn: async ({ signal }): Promise<SearchResults> => {
      const corpus = await queryClient.fetchQuery({
        queryKey: searchCorpusKey,
        queryFn: () => openedCorpus(services, signal),
        staleTime: CORPUS_STALE_MS,
      });
      const needle = q.toLocaleLowerCase();
      const matches = corpus.filter((m) => m.content.toLocaleLowerCase().includes(needle));
      const days = matches.length > 0 ? await daysById(queryClient, signal) : new Map<string, DateMessages>();
      const found = matches.flatMap((message) => {
        const day = days.get(message.date_message_id);
        return day ? [{ message, day }] : [];
      });
      return found.sort((a, b) => b.message.timestamps - a.message.timestamps).slice(0, RESULTS_MAX);
    },
    enabled: q.length > 0,
    staleTime: 5_000,
    placeholderData: keepPreviousData,
  });
}

/** This device's keys changed (approved, a new epoch): its searches open the sealed messages again, from the start. */
export function searchAgainWithNewKeys(queryClient: QueryClient): void {
  staleSearchCorpus(queryClient);
  void queryClient.invalidateQueries({ queryKey: searchKey.all });
}

/** A new message: the next search on the device pages through the messages again. */
export function staleSearchCorpus(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: searchCorpusKey, exact: true, refetchType: "none" });
}

export function removeFromSearch(queryClient: QueryClient, ids: readonly string[]): void {
  if (ids.length === 0) return;
  staleSearchCorpus(queryClient);
  const gone = new Set(ids);
  queryClient.setQueriesData<SearchResults>({ queryKey: searchKey.all }, (old) =>
    old?.some((r) => gone.has(r.message.id)) ? old.filter((r) => !gone.has(r.message.id)) : old,
  );
}

/** A device got a new name: the results it sent show it. */
export function renameDeviceInSearch(queryClient: QueryClient, deviceId: string, name: string): void {
  const sentBy = (m: Message) => m.device?.id === deviceId;
  const rename = (m: Message) => (sentBy(m) ? { ...m, device: { id: deviceId, name } } : m);
  queryClient.setQueriesData<SearchResults>({ queryKey: searchKey.all }, (old) =>
    old?.some((r) => sentBy(r.message)) ? old.map((r) => ({ ...r, message: rename(r.message) })) : old,
  );
}
