// Babel for Jest only (the package itself is compiled by tsc): React Native's preset.
module.exports = { presets: ["module:@react-native/babel-preset"] };
