/** Object keys of media: the sealed original and the upload key presigned for writing it. Pure functions. */

/**
 * Where the client PUTs the bytes of the object whose sealed original key is `originalKey`
 * (`media/<entity>/<uuid>/original` → `uploads/<entity>/<uuid>`). Only this key is ever presigned for
 * writing; finalize copies it to the original key, so a URL still valid after finalize writes bytes
 * nobody reads (the embedded store refuses such a PUT; on S3 a lifecycle rule on `uploads/` removes them).
 */
export function uploadKeyOf(originalKey: string): string {
  return `uploads/${originalKey.replace(/^media\//, '').replace(/\/original$/, '')}`;
}

/** The original key whose upload key is `uploadKey`; `undefined` for any other key. */
export function originalKeyOfUpload(uploadKey: string): string | undefined {
  const m = /^uploads\/(\d+\/[0-9a-f-]{36})$/.exec(uploadKey);
  return m ? `media/${m[1]}/original` : undefined;
}
