import "../styles/hero-art.css";
/** A phone and a laptop showing the same day, drawn in HTML so the hero paints without an image request. */
export function HeroIllustration() {
  return (
    <div className="hero-art" aria-hidden="true">
      <div className="hero-art__laptop">
        <div className="hero-art__screen">
          <div className="hero-art__sidebar">
            <span className="hero-art__pill hero-art__pill--active">Today</span>
            <span className="hero-art__pill">Yesterday</span>
            <span className="hero-art__pill">Monday</span>
          </div>
          <div className="hero-art__chat">
            <span className="hero-art__date">14/06/2024</span>
            <span className="hero-art__bubble">Flight AF1234 · gate 32 · boarding 9:40</span>
            <span className="hero-art__bubble">https://maps.example/hotel-lisboa</span>
            <span className="hero-art__bubble hero-art__bubble--new">
              <span className="hero-art__file" /> boarding-pass.pdf
            </span>
          </div>
        </div>
        <div className="hero-art__base" />
      </div>
      <div className="hero-art__phone">
        <div className="hero-art__notch" />
        <span className="hero-art__date">Today</span>
        <span className="hero-art__bubble">Flight AF1234 · gate 32 · boarding 9:40</span>
        <span className="hero-art__bubble">https://maps.example/hotel-lisboa</span>
        <span className="hero-art__bubble hero-art__bubble--sending">
          <span className="hero-art__file" /> boarding-pass.pdf
        </span>
      </div>
      <div className="hero-art__sync">
        <svg
          aria-hidden="true"
          viewBox="0 0 24 24"
          width="22"
          height="22"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
        >
          <path d="M20 11a8 8 0 0 0-14.3-4.9L4 8M4 3v5h5M4 13a8 8 0 0 0 14.3 4.9L20 16M20 21v-5h-5" />
        </svg>
      </div>
    </div>
  );
}
