// Pictures made for the thumbnail tests: real encodings from sharp, and PNGs written byte by byte whose header
// claims whatever dimensions a test needs, with a correct CRC and almost no pixel data.
import { crc32, deflateSync } from 'node:zlib'
import sharp from 'sharp'

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex')

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/**
 * A PNG of a few dozen bytes whose IHDR says `width` × `height` (8-bit RGB): decoding it would need the memory of
 * that many pixels, reading its header none. `pixels`: the IDAT's bytes, a few zlib-compressed zeros by default.
 */
export function pngClaiming(width: number, height: number, pixels = deflateSync(Buffer.alloc(16))): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // RGB
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

export const RED = { r: 255, g: 0, b: 0 }
export const BLUE = { r: 0, g: 0, b: 255 }

/**
 * A 12-megapixel camera JPEG stored sideways: 4000 × 3000 pixels, its left half red and its right half blue, with
 * EXIF orientation 6 (turn 90° clockwise to show), a camera's make and model, and a GPS position.
 */
export async function sidewaysPhoto(): Promise<Buffer> {
  const red = await sharp({ create: { width: 2000, height: 3000, channels: 3, background: RED } })
    .png()
    .toBuffer()
  return sharp({ create: { width: 4000, height: 3000, channels: 3, background: BLUE } })
    .composite([{ input: red, left: 0, top: 0 }])
    .jpeg()
    .withExif({
      IFD0: { Make: 'TestCam', Model: 'Secret Model 7' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100' },
    })
    .withMetadata({ orientation: 6 })
    .toBuffer()
}

/** A plain picture of `width` × `height` in `format`. */
export async function picture(width: number, height: number, format: 'png' | 'jpeg' | 'webp' = 'png') {
  return sharp({ create: { width, height, channels: 3, background: { r: 40, g: 160, b: 90 } } })
    .toFormat(format)
    .toBuffer()
}

/** An animated GIF of 20 × 10 pixels: a red frame, then a blue one. */
export async function twoFrameGif(): Promise<Buffer> {
  const frame = (background: typeof RED) =>
    sharp({ create: { width: 20, height: 10, channels: 3, background } })
      .png()
      .toBuffer()
  return sharp([await frame(RED), await frame(BLUE)], { join: { animated: true } })
    .gif()
    .toBuffer()
}

/** The colour of one pixel of an encoded picture. */
export async function pixelAt(image: Buffer, x: number, y: number): Promise<{ r: number; g: number; b: number }> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const at = (y * info.width + x) * info.channels
  return { r: data[at]!, g: data[at + 1]!, b: data[at + 2]! }
}

/** Whether `colour` is close to `target` (lossy encoders move colours a little). */
export const near = (colour: { r: number; g: number; b: number }, target: typeof RED) =>
  Math.abs(colour.r - target.r) < 60 && Math.abs(colour.g - target.g) < 60 && Math.abs(colour.b - target.b) < 60
