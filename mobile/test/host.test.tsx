// @vitest-environment happy-dom
// InterviewHost: the built-in prompt, the iframe for an active launch, allowedOrigins and onClosed reasons.
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InterviewHost } from "../src/react/InterviewHost.tsx";
import type { InterviewClient } from "../src/core/client.ts";
import type { Snapshot } from "../src/core/types.ts";

afterEach(cleanup);

/** A client double driven by the test: the host only uses the client's public surface. */
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
    startPendingInvite: vi.fn(async () => {
      set({ pendingInvite: null, activeLaunch: { url: "https://interviews.example.com/s/x?launch=1", expiresAt: null, source: "invite" } });
      return "webview" as const;
    }),
    dismissPendingInvite: vi.fn(() => set({ pendingInvite: null })),
    closeActiveLaunch: vi.fn(() => set({ activeLaunch: null })),
    reportPromptShown: vi.fn(),
    diagnose: vi.fn(),
  } as unknown as InterviewClient & { startPendingInvite: ReturnType<typeof vi.fn>; reportPromptShown: ReturnType<typeof vi.fn> };
  return { client, set };
}

const invite = { launchRuleId: "r", experimentId: "e", prompt: { title: "Got 5 minutes?", body: "Tell us", acceptLabel: "Start interview", dismissLabel: "Not now" }, launchToken: "t", expiresAt: Date.now() + 60_000 };
const post = (data: unknown, origin: string) => act(() => void window.dispatchEvent(new MessageEvent("message", { data, origin })));

describe("InterviewHost", () => {
  it("shows the prompt for a pending invite, reports it shown once, and accept opens the iframe", async () => {
    const { client, set } = fakeClient();
    render(<InterviewHost client={client} />);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    act(() => set({ pendingInvite: invite }));
    expect(screen.getByRole("alertdialog", { name: "Got 5 minutes?" })).toBeTruthy();
    expect(client.reportPromptShown).toHaveBeenCalledTimes(1);
    await act(async () => void fireEvent.click(screen.getByText("Start interview")));
    expect(client.startPendingInvite).toHaveBeenCalled();
    expect(screen.getByTitle("Interview").getAttribute("src")).toBe("https://interviews.example.com/s/x?launch=1");
  });

  it("respects visible and showPrompt", () => {
    const { client, set } = fakeClient();
    set({ pendingInvite: invite });
    const { rerender } = render(<InterviewHost client={client} visible={false} />);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    rerender(<InterviewHost client={client} showPrompt={false} />);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    rerender(<InterviewHost client={client} />);
    expect(screen.getByRole("alertdialog")).toBeTruthy();
    fireEvent.click(screen.getByText("Not now"));
    expect(screen.queryByRole("alertdialog")).toBeNull();
  });

  it("handles messages from the launch origin and allowedOrigins only, and reports closes", () => {
    const { client, set } = fakeClient();
    const on = { started: vi.fn(), completed: vi.fn(), closed: vi.fn(), error: vi.fn(), loaded: vi.fn() };
    render(<InterviewHost client={client} allowedOrigins={["https://cdn.example.net"]} onLoaded={on.loaded} onStarted={on.started} onCompleted={on.completed} onClosed={on.closed} onError={on.error} />);
    act(() => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "link" } }));
    post({ type: "interview.loaded" }, "https://interviews.example.com");
    post({ type: "interview.started", sessionId: "s1" }, "https://cdn.example.net");
    post({ type: "interview.completed", sessionId: "s1" }, "https://evil.example.org");
    expect(on.loaded).toHaveBeenCalledTimes(1);
    expect(on.started).toHaveBeenCalledWith(expect.objectContaining({ type: "interview.started" }), "s1");
    expect(on.completed).not.toHaveBeenCalled();
    expect(on.error).toHaveBeenCalledWith(expect.any(Error), expect.anything());
    post({ type: "interview.closed", reason: "system" }, "https://interviews.example.com");
    expect(on.closed).toHaveBeenCalledWith(expect.anything(), "system");
    expect(screen.queryByTitle("Interview")).toBeNull();
    act(() => set({ activeLaunch: { url: "https://interviews.example.com/s/y", expiresAt: null, source: "link" } }));
    fireEvent.click(screen.getByLabelText("Close interview"));
    expect(on.closed).toHaveBeenLastCalledWith({ type: "host.close_button" }, "user");
  });

  it("accepts messages from the fallback URLs' origins the client reports, like the launch's", async () => {
    const { client, set } = fakeClient();
    (client as unknown as { fallbackOrigins: () => string[] }).fallbackOrigins = () => ["https://fallback.example.net"];
    const started = vi.fn();
    const error = vi.fn();
    render(<InterviewHost client={client} onStarted={started} onError={error} />);
    await act(async () => set({ activeLaunch: { url: "https://interviews.example.com/s/x", expiresAt: null, source: "invite" } }));
    await post({ type: "interview.started", sessionId: "s7" }, "https://fallback.example.net");
    expect(started).toHaveBeenCalledWith(expect.objectContaining({ type: "interview.started" }), "s7");
    await post({ type: "interview.started", sessionId: "s8" }, "https://elsewhere.example.org");
    expect(started).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledTimes(1);
  });
});

describe("the web entry's client", () => {
  it("flushes queued prompt events when the page is hidden", async () => {
    const { createInterviewClient } = await import("../src/web.ts");
    const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", fetch: async () => ({ ok: true, status: 200, text: async () => JSON.stringify({ object: "participant_config", ttlSeconds: 300, triggerRules: [], audienceMatches: [] }) }) });
    const flush = vi.spyOn(client, "flush");
    Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
    expect(flush).toHaveBeenCalledTimes(1);
  });
});
