/**
 * Expo config plugin: `"plugins": ["@service/interviews-react-native"]` in app.json (or with options,
 * `["@service/interviews-react-native", { "microphonePermission": "..." }]`). The interview is spoken, so it adds
 * the iOS microphone usage description (NSMicrophoneUsageDescription) and the Android RECORD_AUDIO and
 * MODIFY_AUDIO_SETTINGS permissions. An app's own description is kept unless the option replaces it.
 */
"use strict";
// CommonJS, because Expo loads plugins with require(). The package's "type" is commonjs for this file's sake; its
// ES module build declares itself in dist/package.json. The app's own copy of the config-plugins API: through
// `expo` in an Expo app, directly otherwise.
const plugins = (() => {
  try {
    return require("expo/config-plugins");
  } catch {
    return require("@expo/config-plugins");
  }
})();
const pkg = require("./package.json");

const DEFAULT_MICROPHONE = "Allow $(PRODUCT_NAME) to use the microphone for the interviews you choose to start.";
const ANDROID_PERMISSIONS = ["android.permission.RECORD_AUDIO", "android.permission.MODIFY_AUDIO_SETTINGS"];

function withInterviews(config, options = {}) {
  const { microphonePermission } = options ?? {};
  if (microphonePermission !== undefined && (typeof microphonePermission !== "string" || microphonePermission.trim() === "")) {
    throw new Error(`@service/interviews-react-native: microphonePermission must be a non-empty string, got ${JSON.stringify(microphonePermission)}`);
  }
  config = plugins.withInfoPlist(config, (c) => {
    c.modResults.NSMicrophoneUsageDescription = microphonePermission ?? c.modResults.NSMicrophoneUsageDescription ?? DEFAULT_MICROPHONE;
    return c;
  });
  return plugins.AndroidConfig.Permissions.withPermissions(config, ANDROID_PERMISSIONS);
}

module.exports = plugins.createRunOncePlugin(withInterviews, pkg.name, pkg.version);
