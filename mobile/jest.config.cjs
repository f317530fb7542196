// Jest for the React Native host (test-native/), with React Native's own preset; run by the root `npm test`.
module.exports = {
  rootDir: __dirname,
  preset: "@react-native/jest-preset",
  testMatch: ["<rootDir>/test-native/**/*.test.tsx"],
  transform: { "\\.[jt]sx?$": ["babel-jest", { configFile: require.resolve("./babel.config.cjs") }] },
  transformIgnorePatterns: ["node_modules/(?!((jest-)?react-native|@react-native(-community)?|react-native-webview|@testing-library)/)"],
};
