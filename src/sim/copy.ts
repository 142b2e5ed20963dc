import rfdc from 'rfdc';

/**
 * A deep copy of the JSON data the simulated API server keeps and hands out. Every read and write
 * copies (callers never share state), so this is on the path of every request: rfdc copies plain
 * data several times faster than structuredClone, which goes through V8's serializer.
 */
export const copyJson = rfdc({ proto: false, circles: false });
