/**
 * One project's data and its indexes. Every list the API serves is a sorted array kept in the list's
 * order (see sorted.ts); lookups by id are maps. Hidden chats are kept apart so they can never leak
 * into a list or a count.
 */
import type {
  FixtureProject, StoredAudience, StoredChat, StoredInterview, StoredInvite, StoredMessage, StoredRelease, StoredStudy, StoredTriggerRule,
} from "../../../fixtures/types.ts";
import type { components } from "../../../generated/schema.d.ts";
import { ascBy, descBy, insertSorted, removeSorted, type Compare } from "./sorted.ts";

export const studyOrder: Compare<StoredStudy> = descBy((s) => s.created_at);
// Written out rather than descBy(...): this comparator sorts a million interviews at start-up.
export const interviewOrder: Compare<StoredInterview> = (a, b) =>
  a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
export const releaseOrder: Compare<StoredRelease> = descBy((r) => r.merged_at);
export const chatOrder: Compare<StoredChat> = descBy((c) => c.created_at);
export const messageOrder: Compare<StoredMessage> = ascBy((m) => m.created_at);

type SimForward = components["schemas"]["SimForward"];
export const FORWARDS_KEPT = 1_000;

/** The project's webhook as stored; the secret never leaves except in the creation response. */
export interface WebhookSetting {
  url: string;
  events: Array<"interview.completed">;
  signing_secret: string;
  /** Bumped on every change, so deliveries scheduled for an older setting can tell they are stale. */
  version: number;
}

/** Interviews of one study by status and quality, kept as interviews come and change (the experiments report). */
export interface StudyCounts {
  total: number;
  started: number;
  processing: number;
  completed: number;
  insightful: number;
  successful: number;
  unsuccessful: number;
}

/** The key of `interviewsByCombo`. */
export const comboKey = (study: string, status: string, quality: string | null) => `${study}\u0000${status}\u0000${quality ?? ""}`;

export const noCounts = (): StudyCounts => ({ total: 0, started: 0, processing: 0, completed: 0, insightful: 0, successful: 0, unsuccessful: 0 });

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The sources of evaluation and release-generated chats: the seed never returns them, whatever the chat's visibility. */
const INTERNAL_SOURCES = new Set(["eval", "releases"]);
/** Only `visible` chats of a customer's source exist for the API; the others are dropped when loaded or planted. */
export const isVisibleChat = (c: StoredChat) => c.visibility === "visible" && !INTERNAL_SOURCES.has(c.source ?? "");
/** A message of a hidden branch is never visible (nor, whatever its own flag, a message of a hidden chat). */
export const isVisibleMessage = (m: StoredMessage) => !m.hidden;

export class Project {
  readonly id: string;
  readonly name: string;
  /**
   * The organisation that owns the project: limits, quotas and delivery slots are shared per tenant, then per
   * project. Each fixture project is its own organisation; a project created through `POST /_sim/projects` belongs
   * to the organisation of the key that created it.
   */
  readonly tenant: string;
  /** Interviews whose respondent left: they stay `started`, and no timer or request completes them. */
  readonly abandoned = new Set<string>();

  readonly studies = new Map<string, StoredStudy>();
  /** Active studies only: the study list shows active studies. */
  readonly activeStudies: StoredStudy[] = [];

  readonly interviews = new Map<string, StoredInterview>();
  readonly interviewList: StoredInterview[] = [];
  readonly interviewsByStudy = new Map<string, StoredInterview[]>();
  readonly interviewsByStatus = new Map<string, StoredInterview[]>();
  readonly interviewsByReference = new Map<string, StoredInterview[]>();
  readonly interviewsByQuality = new Map<string, StoredInterview[]>();
  /**
   * Interviews by (study or `*` for all, status, quality or ""): every combination of the list's filters but
   * reference_id is a union of a few of these, so a filtered page costs O(page), however rare the combination.
   */
  readonly interviewsByCombo = new Map<string, StoredInterview[]>();
  /** Per-study counts, so a report over every study costs O(studies), not O(interviews). */
  readonly studyCounts = new Map<string, StudyCounts>();

  readonly releases = new Map<string, StoredRelease>();
  readonly releaseList: StoredRelease[] = [];

  /** Visible chats only. */
  readonly chats = new Map<string, StoredChat>();
  readonly chatList: StoredChat[] = [];
  /** Visible messages of visible chats, per chat, oldest first. */
  readonly messagesByChat = new Map<string, StoredMessage[]>();
  readonly messages = new Map<string, StoredMessage>();

  readonly triggerRules: StoredTriggerRule[] = [];
  readonly audiences: StoredAudience[] = [];
  readonly invites = new Map<string, StoredInvite>();
  /** Prompt event ids already recorded (idempotency). */
  readonly promptEvents = new Map<string, { phase: string; received_at: string }>();

  webhook: WebhookSetting | null = null;
  /** What `api-sandbox listen` signs its forwards with (webhooks/listener.ts creates it on first use). */
  listenerSecret: string | null = null;
  /** Forwards listeners reported, oldest first, the last FORWARDS_KEPT. */
  readonly forwards: SimForward[] = [];
  private webhookVersion = 0;
  /** Bumped by every change to the data the read operations show (response-cache key). */
  dataVersion = 0;

  constructor(p: FixtureProject, tenant = p.id) {
    this.id = p.id;
    this.name = p.name;
    this.tenant = tenant;
  }

  addStudy(s: StoredStudy): void {
    this.studies.set(s.id, s);
    if (s.status === "active") this.activeStudies.push(s);
  }

  /** Bulk loading appends (finishLoading sorts and indexes); `sorted` inserts in place for interviews created later. */
  addInterview(i: StoredInterview, sorted = false): void {
    this.interviews.set(i.id, i);
    if (!sorted) {
      this.interviewList.push(i);
      return;
    }
    this.dataVersion++;
    insertSorted(this.interviewList, i, interviewOrder);
    for (const [map, key] of this.indexKeys(i)) {
      if (!map.has(key)) map.set(key, []);
      insertSorted(map.get(key)!, i, interviewOrder);
    }
    this.count(i, 1);
  }

  /** Adds (`sign` 1) or removes (-1) an interview from its study's counts. */
  private count(i: StoredInterview, sign: 1 | -1): void {
    let c = this.studyCounts.get(i.study_id);
    if (!c) this.studyCounts.set(i.study_id, (c = noCounts()));
    c.total += sign;
    c[i.status] += sign;
    if (i.status === "completed" && i.quality_score) c[i.quality_score] += sign;
  }

  /** Re-indexes an interview whose status or quality changed (simulated interviews). */
  updateInterview(i: StoredInterview, change: Partial<StoredInterview>): void {
    this.dataVersion++;
    for (const [map, key] of this.indexKeys(i)) removeSorted(map.get(key)!, i, interviewOrder);
    this.count(i, -1);
    Object.assign(i, change);
    this.count(i, 1);
    for (const [map, key] of this.indexKeys(i)) {
      if (!map.has(key)) map.set(key, []);
      insertSorted(map.get(key)!, i, interviewOrder);
    }
  }

  private indexKeys(i: StoredInterview): Array<[Map<string, StoredInterview[]>, string]> {
    const keys: Array<[Map<string, StoredInterview[]>, string]> = [
      [this.interviewsByStudy, i.study_id],
      [this.interviewsByStatus, i.status],
      [this.interviewsByReference, i.reference_id],
    ];
    if (i.quality_score) keys.push([this.interviewsByQuality, i.quality_score]);
    keys.push([this.interviewsByCombo, comboKey(i.study_id, i.status, i.quality_score)], [this.interviewsByCombo, comboKey("*", i.status, i.quality_score)]);
    return keys;
  }

  /** A study created after loading (simulation surface): inserted at its sorted place. */
  plantStudy(s: StoredStudy): void {
    this.dataVersion++;
    this.studies.set(s.id, s);
    if (s.status === "active") insertSorted(this.activeStudies, s, studyOrder);
  }

  /** A study's new status: a new record (the old one may be cached by a reader), in or out of the active list. */
  setStudyStatus(id: string, status: StoredStudy["status"]): void {
    const old = this.studies.get(id);
    if (!old) return;
    this.dataVersion++;
    const study = { ...old, status };
    this.studies.set(id, study);
    const at = this.activeStudies.indexOf(old);
    if (at >= 0) this.activeStudies.splice(at, 1);
    if (status === "active") insertSorted(this.activeStudies, study, studyOrder);
  }

  /** A chat and its messages created after loading (simulation surface); hidden ones are dropped as at loading. */
  plantChat(c: StoredChat, messages: StoredMessage[]): void {
    if (!isVisibleChat(c)) return;
    this.dataVersion++;
    this.chats.set(c.id, c);
    insertSorted(this.chatList, c, chatOrder);
    this.messagesByChat.set(c.id, []);
    for (const m of messages) this.addMessage(m);
    this.messagesByChat.get(c.id)!.sort(messageOrder);
  }

  /** A release created after loading (simulation surface), in its place in the list. */
  plantRelease(r: StoredRelease): void {
    this.dataVersion++;
    this.releases.set(r.id, r);
    insertSorted(this.releaseList, r, releaseOrder);
  }

  addRelease(r: StoredRelease): void {
    this.releases.set(r.id, r);
    this.releaseList.push(r);
  }

  addChat(c: StoredChat): void {
    if (!isVisibleChat(c)) return;
    this.chats.set(c.id, c);
    this.chatList.push(c);
    this.messagesByChat.set(c.id, []);
  }

  /** Must run after every chat is added: messages of hidden chats and hidden branches are dropped here. */
  addMessage(m: StoredMessage): void {
    if (!isVisibleMessage(m)) return;
    const list = this.messagesByChat.get(m.chat_id);
    if (!list) return;
    list.push(m);
    this.messages.set(m.id, m);
  }

  /**
   * Sorts every index once after bulk loading. The interview list is sorted once; the per-filter indexes are
   * then rebuilt by one pass over it, already in order (sorting each of them again cost 4x the time at 1M).
   */
  finishLoading(): void {
    this.activeStudies.sort(studyOrder);
    this.interviewList.sort(interviewOrder);
    const maps = [this.interviewsByStudy, this.interviewsByStatus, this.interviewsByReference, this.interviewsByQuality, this.interviewsByCombo];
    for (const map of maps) map.clear();
    this.studyCounts.clear();
    for (const i of this.interviewList) {
      this.count(i, 1);
      for (const [map, key] of this.indexKeys(i)) {
        const list = map.get(key);
        if (list) list.push(i);
        else map.set(key, [i]);
      }
    }
    this.releaseList.sort(releaseOrder);
    this.chatList.sort(chatOrder);
    for (const list of this.messagesByChat.values()) list.sort(messageOrder);
  }

  /** `version`: the version a compacted change restores (else the next one). */
  setWebhook(url: string, events: Array<"interview.completed">, secret: string, version?: number): WebhookSetting {
    this.webhookVersion = version ?? this.webhookVersion + 1;
    this.webhook = { url, events, signing_secret: secret, version: this.webhookVersion };
    return this.webhook;
  }

  addForward(f: SimForward): void {
    this.forwards.push(f);
    if (this.forwards.length > FORWARDS_KEPT) this.forwards.splice(0, this.forwards.length - FORWARDS_KEPT);
  }

  deleteWebhook(version?: number): void {
    this.webhook = null;
    this.webhookVersion = version ?? this.webhookVersion + 1;
  }

  static group<T extends { project_id: string }>(items: T[]): Map<string, T[]> {
    const map = new Map<string, T[]>();
    for (const item of items) push(map, item.project_id, item);
    return map;
  }
}
