/**
 * InterviewHost for React Native: the built-in prompt for a pending invite, and a full-screen modal with a
 * react-native-webview for the active launch.
 *
 * - The page talks to the host with `window.ReactNativeWebView.postMessage(JSON.stringify(message))` (protocol.ts);
 *   a message is acted on only when the page that sent it is on the launch origin or one of `allowedOrigins`.
 * - Allowed origins: the launch's, the fallback URLs' the server sent (`client.fallbackOrigins()`), and
 *   `allowedOrigins`. Top-frame navigation stays on them (`onShouldStartLoadWithRequest`); any other link is handed
 *   to `Linking`. Frames inside the page are the page's business: only top-frame navigations are policed, so a
 *   cross-origin frame never sends the user to Safari.
 * - The interview is spoken: on Android the host asks for RECORD_AUDIO before each launch's web view opens (a
 *   refusal is asked again at the next launch), and the web view grants the page's microphone request; on iOS the
 *   system asks (the app declares NSMicrophoneUsageDescription).
 * - The close button sits inside the safe area (notch, status bar, rounded corners), from
 *   react-native-safe-area-context: the modal gets its own SafeAreaProvider, as a modal must.
 * - `visible` is the app's gate; hiding the host unmounts the web view, so a hidden interview holds no microphone.
 */
import { useEffect, useState } from "react";
import { Linking, Modal, PermissionsAndroid, Platform, Pressable, StyleSheet, Text, View } from "react-native";
import { initialWindowMetrics, SafeAreaProvider, useSafeAreaInsets } from "react-native-safe-area-context";
import { WebView, type WebViewMessageEvent } from "react-native-webview";
import { originOf } from "../core/links.ts";
import { useHostState, type HostCallbacks } from "../react/host-state.ts";

export type InterviewHostProps = HostCallbacks;

/** The close button, inside the safe area of the modal's own provider. */
function CloseButton({ onPress }: { onPress: () => void }) {
  const insets = useSafeAreaInsets();
  return (
    <Pressable accessibilityRole="button" accessibilityLabel="Close interview" onPress={onPress} style={[styles.close, { top: insets.top + 8, right: insets.right + 12 }]}>
      <Text style={styles.closeText}>×</Text>
    </Pressable>
  );
}

export function InterviewHost(props: InterviewHostProps) {
  const { visible = true, allowedOrigins = [] } = props;
  const host = useHostState(props);
  const { activeLaunch, pendingInvite, latest } = host;
  /** The launch whose microphone question has been answered (iOS: the system asks, so every launch is ready). */
  const [micAnswered, setMicAnswered] = useState<object | null>(null);
  const micReady = Platform.OS !== "android" || (activeLaunch !== null && micAnswered === activeLaunch);

  // Android: the microphone permission before each launch's web view opens, so a refusal is asked again next time;
  // a refusal is reported and the interview still opens.
  const showing = visible && activeLaunch !== null;
  useEffect(() => {
    if (!showing || micReady) return;
    const launch = activeLaunch;
    let live = true;
    PermissionsAndroid.request(PermissionsAndroid.PERMISSIONS.RECORD_AUDIO)
      .then((answer) => {
        if (answer !== PermissionsAndroid.RESULTS.GRANTED) latest.current.onError?.(new Error(`microphone permission ${answer}`), { type: "host.microphone" });
      })
      .catch((err: unknown) => latest.current.onError?.(err instanceof Error ? err : new Error(String(err)), { type: "host.microphone" }))
      .finally(() => live && setMicAnswered(launch));
    return () => {
      live = false;
    };
  }, [showing, micReady, activeLaunch]);

  if (!visible) return null;

  if (activeLaunch) {
    const launch = activeLaunch;
    const fallbacks = typeof props.client.fallbackOrigins === "function" ? props.client.fallbackOrigins() : [];
    const allowed = new Set([launch.url, ...fallbacks, ...allowedOrigins].map(originOf).filter((o): o is string => o !== null));
    const close = () => host.closeByUser(launch);
    const onMessage = (e: WebViewMessageEvent) => {
      const { data, url } = e.nativeEvent;
      const origin = originOf(url);
      if (!origin || !allowed.has(origin)) return host.reject(`ignored a message from a disallowed origin: ${origin ?? url}`, data);
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        parsed = undefined;
      }
      host.deliver(launch, parsed, data);
    };
    return (
      <Modal visible animationType="slide" presentationStyle="fullScreen" onRequestClose={close} accessibilityViewIsModal>
        <SafeAreaProvider initialMetrics={initialWindowMetrics}>
        <View style={styles.full}>
          <CloseButton onPress={close} />
          {micReady ? (
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
                // A frame inside the page (iOS reports isTopFrame; Android asks for the top frame only).
                if (request.isTopFrame === false) return true;
                const origin = originOf(request.url);
                if (origin && allowed.has(origin)) return true;
                if (request.url === "about:blank") return true;
                // Anything else leaves the interview: the system opens it, the web view stays where it is.
                Linking.openURL(request.url).catch((err: unknown) => host.reject(`could not open ${request.url}: ${err instanceof Error ? err.message : String(err)}`, request));
                return false;
              }}
              onError={(e) => latest.current.onError?.(new Error(`the interview page failed to load: ${e.nativeEvent.description}`), e.nativeEvent)}
              onHttpError={(e) => latest.current.onError?.(new Error(`the interview page answered ${e.nativeEvent.statusCode}`), e.nativeEvent)}
              style={styles.full}
            />
          ) : null}
        </View>
        </SafeAreaProvider>
      </Modal>
    );
  }

  if (host.promptVisible && pendingInvite) {
    const { prompt } = pendingInvite;
    return (
      <Modal visible transparent animationType="fade" onRequestClose={host.dismiss}>
        <View style={styles.backdrop}>
          <View style={styles.card} accessibilityRole="alert" accessibilityLabel={prompt.title}>
            <Text style={styles.title}>{prompt.title}</Text>
            <Text style={styles.body}>{prompt.body}</Text>
            <Pressable accessibilityRole="button" accessibilityLabel={prompt.acceptLabel} disabled={host.busy} onPress={host.accept} style={styles.primary}>
              <Text style={styles.primaryText}>{prompt.acceptLabel}</Text>
            </Pressable>
            <Pressable accessibilityRole="button" accessibilityLabel={prompt.dismissLabel} disabled={host.busy} onPress={host.dismiss} style={styles.secondary}>
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
  close: { position: "absolute", zIndex: 1, padding: 8 },
  closeText: { fontSize: 28 },
  backdrop: { flex: 1, justifyContent: "flex-end", backgroundColor: "rgba(0,0,0,0.35)" },
  card: { margin: 16, padding: 20, borderRadius: 16, backgroundColor: "#fff" },
  title: { fontSize: 18, fontWeight: "600", marginBottom: 8 },
  body: { fontSize: 15, marginBottom: 16 },
  primary: { padding: 14, borderRadius: 10, backgroundColor: "#111", alignItems: "center", marginBottom: 8 },
  primaryText: { color: "#fff", fontWeight: "600" },
  secondary: { padding: 12, alignItems: "center" },
});
