// InterviewHost on React Native, from the packaged build (dist/): the prompt, the full-screen web view, the bridge
// through window.ReactNativeWebView.postMessage, navigation restricted to the launch and allowed origins with
// other links handed to Linking, onClosed reasons, and the Android microphone permission.
import { describe, expect, it, jest, beforeEach } from "@jest/globals";
import { act, fireEvent, render, screen } from "@testing-library/react-native";
import { Linking, PermissionsAndroid, Platform } from "react-native";
import { InterviewHost, createInterviewClient } from "../dist/index.js";

// The native WebView cannot run in Jest: a stand-in records the props the host gives it.
const webViews: Array<Record<string, any>> = [];
jest.mock("react-native-webview", () => {
  const { View } = jest.requireActual<typeof import("react-native")>("react-native");
  return { WebView: (props: Record<string, unknown>) => (webViews.push(props), <View testID={props.testID as string} />) };
});

// The safe-area library's own Jest mock (what its README tells apps to use); insets are set per test.
jest.mock("react-native-safe-area-context", () => jest.requireActual<any>("react-native-safe-area-context/jest/mock").default);

type Snapshot = { pendingInvite: any; activeLaunch: any };
function fakeClient() {
  let snapshot: Snapshot = { pendingInvite: null, activeLaunch: null };
  const listeners = new Set<() => void>();
  const set = (s: Partial<Snapshot>) => {
    snapshot = { ...snapshot, ...s };
    listeners.forEach((l) => l());
  };
  const client = {
    subscribe: (l: () => void) => (listeners.add(l), () => listeners.delete(l)),
    getSnapshot: () => snapshot,
    startPendingInvite: jest.fn(async () => {
      set({ pendingInvite: null, activeLaunch: { url: "https://interviews.example.com/s/x?launch=1", expiresAt: null, source: "invite" } });
      return "webview";
    }),
    dismissPendingInvite: jest.fn(() => set({ pendingInvite: null })),
    closeActiveLaunch: jest.fn(() => set({ activeLaunch: null })),
    reportPromptShown: jest.fn(),
    diagnose: jest.fn(),
    fallbackOrigins: jest.fn(() => [] as string[]),
  };
  return { client: client as any, set };
}

const invite = { launchRuleId: "r", experimentId: "e", prompt: { title: "Got 5 minutes?", body: "Tell us", acceptLabel: "Start interview", dismissLabel: "Not now" }, launchToken: "t", expiresAt: Date.now() + 60_000 };
const lastWebView = () => webViews[webViews.length - 1];
const message = (data: unknown, url = "https://interviews.example.com/s/x") => act(async () => lastWebView().onMessage({ nativeEvent: { data: typeof data === "string" ? data : JSON.stringify(data), url } }));

beforeEach(() => {
  webViews.length = 0;
  Platform.OS = "ios";
});

describe("InterviewHost (React Native)", () => {
  it("shows the prompt, reports it shown once, and accept opens the interview full screen in a web view", async () => {
    const { client, set } = fakeClient();
    await render(<InterviewHost client={client} />);
    expect(screen.queryByText("Got 5 minutes?")).toBeNull();
    await act(async () => set({ pendingInvite: invite }));
    expect(screen.getByText("Got 5 minutes?")).toBeTruthy();
    expect(client.reportPromptShown).toHaveBeenCalledTimes(1);
    await act(async () => fireEvent.press(screen.getByLabelText("Start interview")));
    expect(client.startPendingInvite).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId("interview-webview")).toBeTruthy();
    expect(lastWebView().source).toEqual({ uri: "https://interviews.example.com/s/x?launch=1" });
    expect(lastWebView().mediaPlaybackRequiresUserAction).toBe(false);
  });

  it("respects visible and showPrompt, and dismiss clears the invite", async () => {
    const { client, set } = fakeClient();
    set({ pendingInvite: invite });
    const view = await render(<InterviewHost client={client} visible={false} />);
    expect(screen.queryByText("Got 5 minutes?")).toBeNull();
    await view.rerender(<InterviewHost client={client} showPrompt={false} />);
    expect(screen.queryByText("Got 5 minutes?")).toBeNull();
    await view.rerender(<InterviewHost client={client} />);
    await act(async () => fireEvent.press(screen.getByLabelText("Not now")));
    expect(client.dismissPendingInvite).toHaveBeenCalled();
    expect(screen.queryByText("Got 5 minutes?")).toBeNull();
  });

  it("acts on messages from the launch origin and allowedOrigins only, with the seed's callbacks and sessionId", async () => {
    const { client, set } = fakeClient();
    const on = { loaded: jest.fn(), started: jest.fn(), completed: jest.fn(), abandoned: jest.fn(), closed: jest.fn(), error: jest.fn() };
    await render(<InterviewHost client={client} allowedOrigins={["https://cdn.example.net"]} onLoaded={on.loaded} onStarted={on.started} onCompleted={on.completed} onAbandoned={on.abandoned} onClosed={on.closed} onError={on.error} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "invite" } }));
    await message({ type: "interview.loaded" });
    await message({ type: "interview.started", sessionId: "s1" }, "https://cdn.example.net/frame");
    await message({ type: "interview.completed", sessionId: "s1" }, "https://evil.example.org/");
    await message("not json");
    expect(on.loaded).toHaveBeenCalledTimes(1);
    expect(on.started).toHaveBeenCalledWith(expect.objectContaining({ type: "interview.started" }), "s1");
    expect(on.completed).not.toHaveBeenCalled();
    expect(on.error).toHaveBeenCalledTimes(2);
    await message({ type: "interview.abandoned" });
    expect(on.abandoned).toHaveBeenCalledWith({ type: "interview.abandoned" }, undefined);
    await message({ type: "interview.completed", sessionId: "s1" });
    expect(on.completed).toHaveBeenCalledWith(expect.objectContaining({ type: "interview.completed" }), "s1");
    await message({ type: "interview.closed", reason: "user" });
    expect(on.closed).toHaveBeenLastCalledWith({ type: "interview.closed", reason: "user" }, "user");
    expect(client.closeActiveLaunch).toHaveBeenCalled();
    expect(screen.queryByTestId("interview-webview")).toBeNull();
  });

  it("keeps navigation on the launch and allowed origins, and hands every other link to Linking", async () => {
    const { client, set } = fakeClient();
    const open = jest.spyOn(Linking, "openURL").mockResolvedValue(true as never);
    await render(<InterviewHost client={client} allowedOrigins={["https://cdn.example.net"]} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "link" } }));
    const decide = (url: string) => lastWebView().onShouldStartLoadWithRequest({ url });
    expect(decide("https://interviews.example.com/s/x/next")).toBe(true);
    expect(decide("https://cdn.example.net/asset")).toBe(true);
    expect(open).not.toHaveBeenCalled();
    expect(decide("https://shop.example/privacy")).toBe(false);
    expect(decide("mailto:help@example.com")).toBe(false);
    expect(open.mock.calls.map((c) => c[0])).toEqual(["https://shop.example/privacy", "mailto:help@example.com"]);
  });

  it("reports the close button as a user close and a launch ended elsewhere as a system close", async () => {
    const { client, set } = fakeClient();
    const closed = jest.fn();
    await render(<InterviewHost client={client} onClosed={closed} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "invite" } }));
    await act(async () => fireEvent.press(screen.getByLabelText("Close interview")));
    expect(closed).toHaveBeenLastCalledWith({ type: "host.close_button" }, "user");
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/y", expiresAt: null, source: "link" } }));
    await act(async () => set({ activeLaunch: null }));
    expect(closed).toHaveBeenLastCalledWith({ type: "host.launch_ended" }, "system");
  });

  it("asks for the microphone on Android before the web view opens, and reports a refusal", async () => {
    Platform.OS = "android";
    const ask = jest.spyOn(PermissionsAndroid, "request").mockResolvedValue(PermissionsAndroid.RESULTS.DENIED as never);
    const { client, set } = fakeClient();
    const error = jest.fn();
    await render(<InterviewHost client={client} onError={error} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "invite" } }));
    expect(ask).toHaveBeenCalledWith(PermissionsAndroid.PERMISSIONS.RECORD_AUDIO);
    expect(error).toHaveBeenCalledWith(expect.objectContaining({ message: expect.stringContaining("microphone permission") }), { type: "host.microphone" });
    expect(screen.getByTestId("interview-webview")).toBeTruthy();
  });

  it("createInterviewClient opens external_browser launches with Linking.openURL by default", async () => {
    const open = jest.spyOn(Linking, "openURL").mockResolvedValue(true as never);
    const fetch = jest.fn(async (url: string) => {
      const body = url.endsWith("/launches")
        ? { object: "launch", mode: "external_browser", url: "https://interviews.example.com/s/x?ext=1", expiresAt: null, reason: null }
        : { object: "participant_config", ttlSeconds: 300, triggerRules: [], audienceMatches: [] };
      return { ok: true, status: 200, text: async () => JSON.stringify(body) };
    });
    const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", fetch: fetch as never });
    expect(await client.handleLink("https://interviews.example.com/i/ABCDEFGH")).toEqual({ handled: true, mode: "external_browser" });
    expect(open).toHaveBeenCalledWith("https://interviews.example.com/s/x?ext=1");
  });

  it("allows the fallback URLs' origins the client has seen, like the launch's", async () => {
    const { client, set } = fakeClient();
    client.fallbackOrigins.mockReturnValue(["https://fallback.example.com"]);
    const open = jest.spyOn(Linking, "openURL").mockResolvedValue(true as never);
    open.mockClear();
    const on = { started: jest.fn() };
    await render(<InterviewHost client={client} onStarted={on.started} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "invite" } }));
    expect(lastWebView().onShouldStartLoadWithRequest({ url: "https://fallback.example.com/i/abcd", isTopFrame: true })).toBe(true);
    await message({ type: "interview.started", sessionId: "s9" }, "https://fallback.example.com/i/abcd");
    expect(on.started).toHaveBeenCalledWith(expect.objectContaining({ type: "interview.started" }), "s9");
    expect(open).not.toHaveBeenCalled();
  });

  it("polices top-frame navigations only: a cross-origin frame inside the interview never opens the browser", async () => {
    const { client, set } = fakeClient();
    const open = jest.spyOn(Linking, "openURL").mockResolvedValue(true as never);
    open.mockClear();
    await render(<InterviewHost client={client} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "invite" } }));
    expect(lastWebView().onShouldStartLoadWithRequest({ url: "https://player.video.example/embed/1", isTopFrame: false })).toBe(true);
    expect(open).not.toHaveBeenCalled();
    expect(lastWebView().onShouldStartLoadWithRequest({ url: "https://player.video.example/embed/1", isTopFrame: true })).toBe(false);
    expect(open).toHaveBeenCalledWith("https://player.video.example/embed/1");
  });

  it("places the close button inside the safe area's insets", async () => {
    const { useSafeAreaInsets } = jest.requireMock<any>("react-native-safe-area-context");
    useSafeAreaInsets.mockReturnValue({ top: 59, right: 20, bottom: 34, left: 0 });
    const { client, set } = fakeClient();
    await render(<InterviewHost client={client} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "invite" } }));
    const style = [screen.getByLabelText("Close interview").props.style].flat(Infinity).reduce((a: object, b: object) => ({ ...a, ...b }), {});
    expect(style).toMatchObject({ position: "absolute", top: 67, right: 32 });
  });

  it("asks for the microphone again at the next launch after a refusal", async () => {
    Platform.OS = "android";
    const ask = jest.spyOn(PermissionsAndroid, "request").mockResolvedValue(PermissionsAndroid.RESULTS.DENIED as never);
    ask.mockClear();
    const { client, set } = fakeClient();
    await render(<InterviewHost client={client} onError={jest.fn()} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "invite" } }));
    expect(ask).toHaveBeenCalledTimes(1);
    await act(async () => set({ activeLaunch: null }));
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/y", expiresAt: null, source: "invite" } }));
    expect(ask).toHaveBeenCalledTimes(2);
    expect(screen.getByTestId("interview-webview")).toBeTruthy();
  });
});
