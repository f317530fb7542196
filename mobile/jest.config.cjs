// Jest for the React Native host (test-native/), with React Native's own preset; run by the root `npm test`.
module.exports = {
  rootDir: __dirname,
  preset: "@react-native/jest-preset",
  // The first test of a file pays React Native's cold transform: seconds on a busy 2-core machine.
  testTimeout: 30_000,
  testMatch: ["<rootDir>/test-native/**/*.test.tsx"],
  // The package's own Jest entry, as apps use it (stand-ins for the web view and the safe-area library).
  setupFiles: ["<rootDir>/dist/cjs/jest.cjs"],
  transform: { "\\.[jt]sx?$": ["babel-jest", { configFile: require.resolve("./babel.config.cjs") }] },
  transformIgnorePatterns: ["node_modules/(?!((jest-)?react-native|@react-native(-community)?|@react-native-async-storage|react-native-webview|@testing-library)/)"],
};
