/**
 * `@service/interviews-react-native/jest`: what an app's Jest tests need, as AsyncStorage ships its own.
 *
 * As a setup file (`setupFiles: ["@service/interviews-react-native/jest"]`), it replaces the two native modules
 * the host renders with stand-ins that run in Jest:
 * - react-native-webview: a View with the host's props recorded (`interviewWebView()`), so a test can post the
 *   interview page's messages (`postFromInterview`) and check where navigation may go;
 * - react-native-safe-area-context: the library's own Jest mock (zero insets unless a test sets them).
 *
 * Imported in a test, `createScriptedClient()` gives an InterviewClient the test drives: offer an invite, answer
 * the accept with any launch result, open a launch; every method is a jest.fn.
 */
import type { InterviewClient } from "./core/client.ts";
import type { ActiveLaunch, LinkResult, PendingInvite, Snapshot, StartResult } from "./core/types.ts";

/**
 * Jest's module-scope `jest` object, which Jest gives every module it loads. Typed here by the little this file
 * uses, so the published declarations need neither @jest/globals nor Node's types.
 */
interface JestObject {
  mock(name: string, factory: () => unknown): unknown;
  requireActual<T = unknown>(name: string): T;
  fn<F extends (...args: any[]) => any>(implementation?: F): F & { mock: { calls: unknown[][] } };
}
declare const jest: JestObject;

/** The props the host gave the latest stand-in web view (source, onMessage, onShouldStartLoadWithRequest, ...). */
const webViews: Array<Record<string, any>> = [];

jest.mock("react-native-webview", () => {
  const React = jest.requireActual<{ createElement(type: unknown, props: object): unknown }>("react");
  const { View } = jest.requireActual<{ View: unknown }>("react-native");
  const WebView = (props: Record<string, unknown>) => {
    webViews.push(props);
    return React.createElement(View, { testID: (props.testID as string) ?? "webview" });
  };
  return { __esModule: true, default: WebView, WebView };
});

// The safe-area library as its own Jest mock has it (zero insets, a provider that needs no native measurement),
// written here because that mock's path and format differ between its versions (5.0 ships TypeScript source).
try {
  jest.requireActual("react-native-safe-area-context");
  jest.mock("react-native-safe-area-context", () => {
    const React = jest.requireActual<{ createElement(type: unknown, props: object, ...children: unknown[]): unknown; useContext(c: unknown): any }>("react");
    const actual = jest.requireActual<Record<string, any>>("react-native-safe-area-context");
    const metrics = { frame: { x: 0, y: 0, width: 320, height: 640 }, insets: { top: 0, right: 0, bottom: 0, left: 0 } };
    return {
      ...actual,
      initialWindowMetrics: metrics,
      useSafeAreaInsets: jest.fn(() => React.useContext(actual.SafeAreaInsetsContext) ?? metrics.insets),
      useSafeAreaFrame: jest.fn(() => React.useContext(actual.SafeAreaFrameContext) ?? metrics.frame),
      SafeAreaProvider: ({ children, initialMetrics }: { children?: unknown; initialMetrics?: typeof metrics | null }) =>
        React.createElement(actual.SafeAreaFrameContext.Provider, { value: initialMetrics?.frame ?? metrics.frame },
          React.createElement(actual.SafeAreaInsetsContext.Provider, { value: initialMetrics?.insets ?? metrics.insets }, children)),
    };
  });
} catch {
  // Not installed: the host cannot render without it, and the app's own error says so.
}

/** The latest web view the host rendered (its props), or undefined. */
export function interviewWebView(): Record<string, any> | undefined {
  return webViews[webViews.length - 1];
}

/**
 * The interview page posts a message, as `window.ReactNativeWebView.postMessage(JSON.stringify(message))` would
 * from `url` (default: the web view's own source). Wrap it in `act` when it changes what renders.
 */
export function postFromInterview(message: unknown, url?: string): void {
  const view = interviewWebView();
  if (!view) throw new Error("postFromInterview: no interview web view is rendered (is there an activeLaunch, and is InterviewHost visible?)");
  view.onMessage?.({ nativeEvent: { data: typeof message === "string" ? message : JSON.stringify(message), url: url ?? view.source?.uri } });
}

/** Forgets the recorded web views (call it in beforeEach when tests share a file). */
export function resetInterviewWebViews(): void {
  webViews.length = 0;
}

export interface ScriptedClient extends InterviewClient {
  /** Shows an invite, as a matching event would (default: a sample prompt). */
  offerInvite(invite?: Partial<PendingInvite>): PendingInvite;
  /** Opens an interview in the host, as an accepted invite or a link would. */
  openLaunch(launch?: Partial<ActiveLaunch>): ActiveLaunch;
  /** What the next startPendingInvite resolves to (default `webview`, which opens `openLaunch()`'s default). */
  answerAcceptWith(result: StartResult): void;
}

const sampleInvite: PendingInvite = Object.freeze({
  launchRuleId: "rule_test", experimentId: "exp_test", launchToken: "lt_test", expiresAt: Date.parse("2099-01-01T00:00:00Z"), triggerEvent: "test_event",
  prompt: Object.freeze({ title: "Got 5 minutes?", body: "Tell us how it went.", acceptLabel: "Start interview", dismissLabel: "Not now" }),
});

/** An InterviewClient whose state the test scripts; InterviewHost renders it like the real one. */
export function createScriptedClient(): ScriptedClient {
  let snapshot: Snapshot = Object.freeze({ pendingInvite: null, activeLaunch: null });
  const listeners = new Set<() => void>();
  const set = (next: Partial<Snapshot>) => {
    snapshot = Object.freeze({ ...snapshot, ...next });
    for (const l of [...listeners]) l();
  };
  let answer: StartResult = "webview";
  let optedOut = false;
  const client: ScriptedClient = {
    setUser: jest.fn(() => set({ pendingInvite: null, activeLaunch: null })),
    wrapTrackClient: jest.fn((c: never) => c) as InterviewClient["wrapTrackClient"],
    track: jest.fn(),
    subscribe: (l) => {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    getSnapshot: () => snapshot,
    startPendingInvite: jest.fn(async (): Promise<StartResult> => {
      if (!snapshot.pendingInvite) return "none";
      const invite = snapshot.pendingInvite;
      set({ pendingInvite: null });
      if (answer === "webview") client.openLaunch({ launchRuleId: invite.launchRuleId, experimentId: invite.experimentId });
      return answer;
    }),
    dismissPendingInvite: jest.fn(() => set({ pendingInvite: null })),
    handleLink: jest.fn(async (): Promise<LinkResult> => ({ handled: false, reason: "not_interview_link" })),
    closeActiveLaunch: jest.fn(() => set({ activeLaunch: null })),
    reportPromptShown: jest.fn(),
    ready: jest.fn(async () => {}),
    diagnose: jest.fn(),
    fallbackOrigins: jest.fn((): readonly string[] => []),
    flush: jest.fn(async () => {}),
    pendingEvents: jest.fn(() => 0),
    optOut: jest.fn(() => {
      optedOut = true;
      set({ pendingInvite: null });
    }),
    optIn: jest.fn(() => void (optedOut = false)),
    isOptedOut: jest.fn(() => optedOut),
    reset: jest.fn(() => set({ pendingInvite: null, activeLaunch: null })),
    dispose: jest.fn(() => listeners.clear()),
    offerInvite(invite = {}) {
      const full = Object.freeze({ ...sampleInvite, ...invite }) as PendingInvite;
      set({ pendingInvite: full });
      return full;
    },
    openLaunch(launch = {}) {
      const full = Object.freeze({ url: "https://interviews.example.com/s/test?launch=1", expiresAt: null, source: "invite" as const, ...launch }) as ActiveLaunch;
      set({ activeLaunch: full });
      return full;
    },
    answerAcceptWith(result) {
      answer = result;
    },
  };
  return client;
}
