/**
 * InterviewHost for React Native: the built-in prompt for a pending invite, and a full-screen modal with a
 * react-native-webview for the active launch.
 *
 * - The page talks to the host with `window.ReactNativeWebView.postMessage(JSON.stringify(message))` (protocol.ts);
 *   a message is acted on only when the page that sent it is on the launch origin or one of `allowedOrigins`.
 * - Navigation stays on those origins (`onShouldStartLoadWithRequest`); any other link is handed to `Linking`.
 * - The interview is spoken: on Android the host asks for RECORD_AUDIO before the web view opens, and the web view
 *   grants the page's microphone request; on iOS the system asks (the app declares NSMicrophoneUsageDescription).
 * - `visible` is the app's gate; hiding the host unmounts the web view, so a hidden interview holds no microphone.
 */
import { useEffect, useRef, useState } from "react";
import { Linking, Modal, PermissionsAndroid, Platform, Pressable, StyleSheet, Text, View } from "react-native";
import { WebView, type WebViewMessageEvent } from "react-native-webview";
import type { InterviewClient } from "../core/client.ts";
import { originOf } from "../core/links.ts";
import type { ActiveLaunch } from "../core/types.ts";
import { parseMessage, type HostCloseEvent, type InterviewMessage } from "../react/protocol.ts";
import { useInterviews } from "../react/useInterviews.ts";

export interface InterviewHostProps {
  client: InterviewClient;
  /** App-controlled gate (default true); still needs a pending invite or an active launch to show anything. */
  visible?: boolean;
  /** Render the built-in prompt (default true); false for a custom prompt driven by useInterviews. */
  showPrompt?: boolean;
  /** Extra origins the web view may navigate to and receive messages from; the launch origin always may. */
  allowedOrigins?: readonly string[];
  onLoaded?: (event: InterviewMessage) => void;
  onStarted?: (event: InterviewMessage, sessionId: string) => void;
  onCompleted?: (event: InterviewMessage, sessionId: string) => void;
  onAbandoned?: (event: InterviewMessage, sessionId?: string) => void;
  onClosed?: (event: InterviewMessage | HostCloseEvent, reason: "user" | "system") => void;
  /** A message from a disallowed origin, a malformed message, a load failure or a refused microphone. */
  onError?: (error: Error, event: unknown) => void;
}

type Mic = "asking" | "ready";

export function InterviewHost(props: InterviewHostProps) {
  const { client, visible = true, showPrompt = true, allowedOrigins = [] } = props;
  const { pendingInvite, activeLaunch } = useInterviews(client);
  const latest = useRef(props);
  latest.current = props;
  const [busy, setBusy] = useState(false);
  const [mic, setMic] = useState<Mic>(Platform.OS === "android" ? "asking" : "ready");
  const closingOurselves = useRef<ActiveLaunch | null>(null);
  const previousLaunch = useRef<ActiveLaunch | null>(activeLaunch);

  const promptVisible = visible && showPrompt && pendingInvite !== null && activeLaunch === null;
  useEffect(() => {
    if (promptVisible) client.reportPromptShown();
  }, [promptVisible, pendingInvite, client]);

  // A launch that disappears without the user or the page closing it (setUser, another link) is a system close.
  useEffect(() => {
    const before = previousLaunch.current;
    previousLaunch.current = activeLaunch;
    if (!before || before === activeLaunch) return;
    if (closingOurselves.current === before) closingOurselves.current = null;
    else latest.current.onClosed?.({ type: "host.launch_ended" }, "system");
  }, [activeLaunch]);

  // Android: the microphone permission before the web view opens; a refusal is reported, the interview still opens.
  const showing = visible && activeLaunch !== null;
  useEffect(() => {
    if (!showing || Platform.OS !== "android" || mic === "ready") return;
    let live = true;
    PermissionsAndroid.request(PermissionsAndroid.PERMISSIONS.RECORD_AUDIO)
      .then((answer) => {
        if (answer !== PermissionsAndroid.RESULTS.GRANTED) latest.current.onError?.(new Error(`microphone permission ${answer}`), { type: "host.microphone" });
      })
      .catch((err: unknown) => latest.current.onError?.(err instanceof Error ? err : new Error(String(err)), { type: "host.microphone" }))
      .finally(() => live && setMic("ready"));
    return () => {
      live = false;
    };
  }, [showing, mic]);

  if (!visible) return null;

  if (activeLaunch) {
    const launch = activeLaunch;
    const allowed = new Set([launch.url, ...allowedOrigins].map(originOf).filter((o): o is string => o !== null));
    const close = () => {
      closingOurselves.current = launch;
      client.closeActiveLaunch();
      latest.current.onClosed?.({ type: "host.close_button" }, "user");
    };
    const report = (message: string, event: unknown) => {
      client.diagnose({ type: "bridge_error", error: message });
      latest.current.onError?.(new Error(message), event);
    };
    const onMessage = (e: WebViewMessageEvent) => {
      const { data, url } = e.nativeEvent;
      const origin = originOf(url);
      if (!origin || !allowed.has(origin)) return report(`ignored a message from a disallowed origin: ${origin ?? url}`, data);
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        parsed = undefined;
      }
      const m = parseMessage(parsed);
      if (!m) return report("malformed interview message", data);
      const p = latest.current;
      if (m.type === "interview.loaded") p.onLoaded?.(m);
      else if (m.type === "interview.started") p.onStarted?.(m, m.sessionId);
      else if (m.type === "interview.completed") p.onCompleted?.(m, m.sessionId);
      else if (m.type === "interview.abandoned") p.onAbandoned?.(m, m.sessionId);
      else {
        closingOurselves.current = launch;
        client.closeActiveLaunch();
        p.onClosed?.(m, m.reason ?? "system");
      }
    };
    return (
      <Modal visible animationType="slide" presentationStyle="fullScreen" onRequestClose={close} accessibilityViewIsModal>
        <View style={styles.full}>
          <Pressable accessibilityRole="button" accessibilityLabel="Close interview" onPress={close} style={styles.close}>
            <Text style={styles.closeText}>×</Text>
          </Pressable>
          {mic === "ready" ? (
            <WebView
              testID="interview-webview"
              source={{ uri: launch.url }}
              originWhitelist={["https://*"]}
              javaScriptEnabled
              domStorageEnabled
              allowsInlineMediaPlayback
              mediaPlaybackRequiresUserAction={false}
              mediaCapturePermissionGrantType="grantIfSameHostElsePrompt"
              onMessage={onMessage}
              onShouldStartLoadWithRequest={(request) => {
                const origin = originOf(request.url);
                if (origin && allowed.has(origin)) return true;
                if (request.url === "about:blank") return true;
                // Anything else leaves the interview: the system opens it, the web view stays where it is.
                Linking.openURL(request.url).catch((err: unknown) => report(`could not open ${request.url}: ${err instanceof Error ? err.message : String(err)}`, request));
                return false;
              }}
              onError={(e) => latest.current.onError?.(new Error(`the interview page failed to load: ${e.nativeEvent.description}`), e.nativeEvent)}
              onHttpError={(e) => latest.current.onError?.(new Error(`the interview page answered ${e.nativeEvent.statusCode}`), e.nativeEvent)}
              style={styles.full}
            />
          ) : null}
        </View>
      </Modal>
    );
  }

  if (promptVisible && pendingInvite) {
    const { prompt } = pendingInvite;
    const accept = () => {
      setBusy(true);
      // startPendingInvite never rejects; the finally only re-enables the buttons.
      void client.startPendingInvite().finally(() => setBusy(false));
    };
    return (
      <Modal visible transparent animationType="fade" onRequestClose={() => client.dismissPendingInvite()}>
        <View style={styles.backdrop}>
          <View style={styles.card} accessibilityRole="alert" accessibilityLabel={prompt.title}>
            <Text style={styles.title}>{prompt.title}</Text>
            <Text style={styles.body}>{prompt.body}</Text>
            <Pressable accessibilityRole="button" accessibilityLabel={prompt.acceptLabel} disabled={busy} onPress={accept} style={styles.primary}>
              <Text style={styles.primaryText}>{prompt.acceptLabel}</Text>
            </Pressable>
            <Pressable accessibilityRole="button" accessibilityLabel={prompt.dismissLabel} disabled={busy} onPress={() => client.dismissPendingInvite()} style={styles.secondary}>
              <Text>{prompt.dismissLabel}</Text>
            </Pressable>
          </View>
        </View>
      </Modal>
    );
  }
  return null;
}

const styles = StyleSheet.create({
  full: { flex: 1, backgroundColor: "#fff" },
  close: { position: "absolute", top: 44, right: 12, zIndex: 1, padding: 8 },
  closeText: { fontSize: 28 },
  backdrop: { flex: 1, justifyContent: "flex-end", backgroundColor: "rgba(0,0,0,0.35)" },
  card: { margin: 16, padding: 20, borderRadius: 16, backgroundColor: "#fff" },
  title: { fontSize: 18, fontWeight: "600", marginBottom: 8 },
  body: { fontSize: 15, marginBottom: 16 },
  primary: { padding: 14, borderRadius: 10, backgroundColor: "#111", alignItems: "center", marginBottom: 8 },
  primaryText: { color: "#fff", fontWeight: "600" },
  secondary: { padding: 12, alignItems: "center" },
});
