import { describe, expect, it } from 'vitest';
import { imageIntent } from './image-intent.js';

describe('imageIntent', () => {
  it.each([
    ['Draw a cat wearing sunglasses.'],
    ['Generate an image of a lighthouse at dawn.'],
    ['Can you create a logo for my bike shop, Spoke & Chain?'],
    ['Please make me a picture of a fox in the snow.'],
    ['Show me a picture of a red panda.'],
    ['Paint a watercolor of a harbour at sunset.'],
    ['Design an app icon for a budgeting app.'],
    ['Render a photorealistic image of a tiny house in a forest.'],
    ['Sketch a castle on a hill.'],
    ['I need an illustration for a blog post about burnout.'],
    ["I'd like a poster for our bake sale on Saturday."],
    ['Create a diagram of the login flow as a PNG image.'],
    ['Imagine and generate a wallpaper with geometric shapes.'],
  ])('asks for a picture: %s', (prompt) => {
    expect(imageIntent(prompt)).toBeGreaterThanOrEqual(0.8);
  });

  it.each([
    ['Describe this image.'],
    ['What is in the photo?'],
    ['How do I resize an image in Python?'],
    ['Which image processing library should I use in Rust?'],
    ['The picture you sent is blurry.'],
    ["Don't draw anything, just explain the rule of thirds."],
    ['Please stop generating images.'],
    ['Write a prompt for Midjourney that generates an image of a castle.'],
    ['Write a Python script that generates thumbnails for all photos in a folder.'],
    ['Explain how diffusion models generate images.'],
    ['How do I build a Docker image for a Go service?'],
    ['Create an image upload form in Vue.'],
    ['Give me ideas for a logo, described in words.'],
    ['What is the best way to draw conclusions from survey data?'],
    ['Sketch out a plan for the migration in bullet points.'],
    ['Our brand image suffered after the outage; draft an apology.'],
    ['Picture this: a world without passwords. Write an essay.'],
    ['How do I draw a rectangle on an HTML canvas?'],
  ])('does not ask for a picture: %s', (prompt) => {
    expect(imageIntent(prompt)).toBeLessThanOrEqual(0.2);
  });

  it('finds the request in any sentence of the prompt', () => {
    expect(
      imageIntent('We are launching a bakery next month. Create a logo for it, warm colours.'),
    ).toBeGreaterThanOrEqual(0.8);
  });
});
